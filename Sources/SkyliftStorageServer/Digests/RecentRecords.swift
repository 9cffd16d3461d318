import SkyliftCore

/// Digest records read lately, by the file version they describe (device, inode, size, modification time): a GET
/// answers with the record of the file it sends, and the same files are asked for again and again; reading the
/// extended attribute was one of a small GET's ten system calls.
///
/// A record found stays valid for as long as its file version does (the record itself is checked against the same
/// fields). That a version has no record is believed for two seconds only: `scrub` may record it meanwhile.
final class RecentRecords: Sendable {
    struct Version: Hashable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let mtime: FileTime

        init(_ stat: FileStat) {
            device = stat.device
            inode = stat.inode
            size = stat.size
            mtime = stat.mtime
        }
    }

    /// Versions remembered at most; past it the table starts over.
    static let capacity = 4096
    /// How long "no record" is believed, in nanoseconds.
    static let absenceLifetime: UInt64 = 2_000_000_000

    private struct Entry { let record: DigestRecord?; let at: UInt64 }
    private let entries = BoundedMemo<Version, Entry>(capacity: capacity)

    /// `.some(record)` (nil inside: known to have none) when remembered, nil when it must be read.
    func lookup(_ version: Version, now: UInt64) -> DigestRecord?? {
        guard let entry = entries[version] else { return nil }
        if entry.record == nil, now < entry.at || now - entry.at > Self.absenceLifetime {
            entries.forget(version)
            return nil
        }
        return .some(entry.record)
    }

    func remember(_ record: DigestRecord?, for version: Version, now: UInt64) {
        entries.remember(Entry(record: record, at: now), for: version)
    }
}

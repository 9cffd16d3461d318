import SkyliftCore
import SkyliftHTTPServer
import SkyliftSystem
import Synchronization

/// Small files served lately, by path: their bytes, status and digest record, so that a GET of one asked for again
/// costs one `fstatat` instead of `openat`, `fstat`, `pread` and `close` (a small GET's file work was half of the
/// server's time per request; the rest is TCP, shared with any server).
///
/// An entry is served only while the path still names the same file in the same state: device, inode, size,
/// modification and change time (`st_ctime`) as they were when the bytes were read. Any write, rename, truncation or
/// attribute change moves the change time, which nobody can set back; and a file is remembered only once its change
/// time lies ``settled`` in the past, so a change within the same clock tick as the read cannot look unchanged.
/// What is served from here is therefore exactly what a fresh read would give.
///
/// Bounded by count (``capacity`` entries of at most ``FolderFile/smallBodyLimit`` bytes, 8 MiB at most).
final class SmallFileCache: Sendable {
    /// What identifies one state of one file: what the server knows of it (kind, device, inode, size, mtime) and
    /// its change time.
    struct Version: Equatable, Sendable {
        let stat: FileStat
        let changed: FileTime

        init(_ status: FileStatus) {
            stat = FileStat(status)
            changed = FileTime(seconds: status.changedSeconds, nanoseconds: status.changedNanoseconds)
        }
    }

    /// One file as it was read.
    final class Entry: Sendable {
        let version: Version
        /// What a GET says of it (ETag, Last-Modified, size), worked out once.
        let item: StoredItem
        let bytes: [UInt8]
        let record: DigestRecord?
        /// The head of a plain GET's whole answer, once one was made (see ``RangedGet``).
        let plainHead = Mutex<HTTPHeaders?>(nil)
        /// That answer as the HTTP server last built it, sent again as it is.
        let plainAnswer = ReusableResponse()

        init(version: Version, item: StoredItem, bytes: [UInt8], record: DigestRecord?) {
            self.version = version
            self.item = item
            self.bytes = bytes
            self.record = record
        }
    }

    /// Files remembered at most.
    static let capacity = 512
    /// How far in the past a file's change time must lie before its bytes are remembered, in seconds (file times
    /// advance by clock ticks of a few milliseconds; two seconds leave room for any).
    let settled: Int64

    /// By the path below the root, as `fstatat` takes it.
    private let entries = BoundedMemo<String, Entry>(capacity: capacity)

    init(settled: Int64 = 2) {
        self.settled = settled
    }

    /// The file at `path` from memory, when it is remembered and unchanged since; nil means: read it.
    func file(_ path: StoragePath) -> CachedFile? {
        let relative = path.segments.joined(separator: "/")
        guard let entry = entries[relative], let root = path.rootFolder else { return nil }
        let status = try? FileStatus(relative, in: root.fd, followLinks: false)
        guard let status, status.isRegular, Version(status) == entry.version else {
            entries.forget(relative)
            return nil
        }
        return CachedFile(entry)
    }

    /// Remembers `bytes` as the whole content of the file at `path` in state `status`, unless the file changed too
    /// recently to be told apart from a change yet to come (see ``settled``). `now` is seconds since 1970.
    func remember(_ bytes: [UInt8], of path: StoragePath, status: FileStatus, record: DigestRecord?, now: Int64) {
        guard status.isRegular, Int64(bytes.count) == status.size, bytes.count <= FolderFile.smallBodyLimit,
              status.changedSeconds < now - settled else { return }
        let version = Version(status)
        let entry = Entry(version: version, item: StoredItem(version.stat), bytes: bytes, record: record)
        entries.remember(entry, for: path.segments.joined(separator: "/"))
    }
}

/// A file served from ``SmallFileCache``: nothing is open, the bytes are in memory.
final class CachedFile: StoredFile {
    let item: StoredItem
    let entry: SmallFileCache.Entry

    init(_ entry: SmallFileCache.Entry) {
        self.entry = entry
        item = entry.item
    }

    func digestRecord() -> DigestRecord? { entry.record }

    func smallBytes(_ range: ByteRange) -> [UInt8]? {
        guard range.length > 0, let slice = slice(range) else { return nil }
        return slice.count == entry.bytes.count ? entry.bytes : Array(slice)
    }

    func body(_ range: ByteRange) -> HTTPResponse.Body {
        .bytes(slice(range).map(Array.init) ?? [])
    }

    func multipartBody(_ parts: [RangedResponse.Part], length: Int64) -> HTTPResponse.Body {
        .stream(length: length, producer: MultipartRanges(parts: parts, length: length, close: {}) { [entry] buffer, offset in
            guard offset >= 0, offset < Int64(entry.bytes.count) else { return nil }
            let n = min(buffer.count, entry.bytes.count - Int(offset))
            entry.bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[Int(offset) ..< Int(offset) + n])) }
            return n
        })
    }

    func close() {}

    private func slice(_ range: ByteRange) -> ArraySlice<UInt8>? {
        guard range.offset >= 0, range.length >= 0, range.offset <= Int64(entry.bytes.count),
              range.length <= Int64(entry.bytes.count) - range.offset else { return nil }
        return entry.bytes[Int(range.offset) ..< Int(range.offset + range.length)]
    }
}

import Foundation
import SkyliftCore
import SkyliftSystem
import Synchronization

/// The hidden file a download is written into, beside its final name (`dir/.name.skylift-part`), and its
/// resume record (`dir/.name.skylift-resume`, JSON through `AtomicFile`): which remote and validator the
/// bytes belong to and, for a download in parallel ranges, how far each range got.
///
/// Nothing appears under the final name until ``commit(modified:)``: file time set, `fsync`, `rename`.
/// The folder's `fsync` is left to the caller, once per folder (``Downloader`` does it after the run), so
/// ten thousand small files cost ten thousand file syncs, not twenty thousand.
final class PartialFile: Sendable {
    let finalPath: String
    let partPath: String
    let recordPath: String
    let fd: FileDescriptor
    private let record = Mutex<ResumeRecord?>(nil)
    /// Whether `fd` is still open: closing twice could close a descriptor another thread was just given.
    private let isOpen = Mutex(true)

    /// Opens (creating, never following a link) the partial file for `finalPath`; its bytes are kept.
    init(finalPath: String) throws(FileError) {
        let folder = AtomicFileFolder.of(finalPath)
        let leaf = finalPath.split(separator: "/").last.map(String.init) ?? finalPath
        self.finalPath = finalPath
        partPath = folder + "/." + leaf + ".skylift-part"
        recordPath = folder + "/." + leaf + ".skylift-resume"
        fd = try FileDescriptor.open(partPath, .readWrite, options: [.create, .noFollow], permissions: 0o644)
    }

    /// The record a run left, when it is readable and describes this partial file.
    func storedRecord() -> ResumeRecord? {
        guard let data = FileManager.default.contents(atPath: recordPath) else { return nil }
        return try? JSONDecoder().decode(ResumeRecord.self, from: data)
    }

    /// Bytes in the partial file.
    func length() throws(FileError) -> Int64 { try fd.status(path: partPath).size }

    /// Drops what the partial file holds and its record: the download starts from byte 0.
    func reset() throws(FileError) {
        Directory.remove(recordPath)
        record.withLock { $0 = nil }
        try fd.setLength(0, path: partPath)
    }

    /// Keeps its own record from now on and saves it (before the first byte of a resumable download).
    func save(_ new: ResumeRecord) throws(FileError) {
        try store(new)
        record.withLock { $0 = new }
    }

    private func store(_ record: ResumeRecord) throws(FileError) {
        try AtomicFile.replace(recordPath, with: Array((try? JSONEncoder().encode(record)) ?? Data()), permissions: 0o644)
    }

    /// Records that range `index` holds `done` bytes: its data is flushed first, so the record never names
    /// bytes a power cut could lose.
    func checkpoint(range index: Int, done: Int64) throws(FileError) {
        try fd.syncData(path: partPath)
        let updated = record.withLock { current -> ResumeRecord? in
            guard let ranges = current?.ranges, ranges.indices.contains(index) else { return nil }
            current?.ranges?[index].done = max(ranges[index].done, done)
            return current
        }
        // A snapshot saved late only undercounts another range's progress: that range reads a little again.
        if let updated { try store(updated) }
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws(FileError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(FileError) in try fd.writeAll(raw, at: offset, path: partPath) } }.get()
    }

    /// Sets the file time, flushes, and renames the file into place; the record goes after.
    func commit(modified: Date?) throws(FileError) {
        if let modified {
            let seconds = modified.timeIntervalSince1970.rounded(.down)
            try fd.setModificationTime(seconds: Int64(seconds), nanoseconds: Int64((modified.timeIntervalSince1970 - seconds) * 1e9),
                                       path: partPath)
        }
        try fd.sync(path: partPath)
        close()
        try Directory.rename(partPath, to: finalPath)
        Directory.remove(recordPath)
    }

    /// Closes and removes the partial file and its record.
    func discard() {
        close()
        Directory.remove(partPath)
        Directory.remove(recordPath)
    }

    /// Closes, keeping the partial file and record for the next run.
    func close() {
        if isOpen.withLock({ open in defer { open = false }; return open }) { fd.close() }
    }
}

/// What a partial download is: the remote's file and validator, and per-range progress when in ranges.
struct ResumeRecord: Codable, Sendable, Equatable {
    var url: String
    var validator: String
    var length: Int64
    /// Parallel ranges and the bytes each holds from its start; nil for one sequential read, whose progress
    /// is the partial file's length.
    var ranges: [RangeProgress]?
}

struct RangeProgress: Codable, Sendable, Equatable {
    var start: Int64
    var end: Int64
    var done: Int64
}

/// The folder part of a path.
enum AtomicFileFolder {
    static func of(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

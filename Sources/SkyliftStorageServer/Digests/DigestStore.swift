import Dispatch
import Foundation
import SkyliftHashing
import SkyliftSystem
import Synchronization

/// Where the digest records of stored files live: an extended attribute on each file
/// (`user.skylift.digest`, see ``DigestRecord``).
///
/// Why on the file rather than in a table beside the tree: the record is set on the temp file before the
/// rename that publishes it, so a file and its record appear together and no crash can leave one without
/// the other; MOVE (a rename) carries it for free, DELETE drops it with the inode, and no table can drift
/// from the tree when folders are renamed. It costs no data copy (a few hundred bytes of metadata).
/// On a file system without user extended attributes (some FUSE and network mounts), nothing is recorded:
/// files are served without digests, clients fall back to reading back, and `scrub` reports every file as
/// unrecorded. ``supported`` says which case a store is in.
final class DigestStore: Sendable {
    static let attribute = "user.skylift.digest"

    /// The algorithms kept besides SHA-256 (which always is).
    let algorithms: Set<DigestAlgorithm>
    private let unsupported = Atomic<Bool>(false)
    private let recent = RecentRecords()

    init(algorithms: Set<DigestAlgorithm>) {
        self.algorithms = algorithms.union([.sha256])
    }

    /// False once a write found the file system without extended attributes.
    var supported: Bool { !unsupported.load(ordering: .relaxed) }

    /// Tries an attribute on a scratch file in `directory` (on the store's file system), so ``supported`` is
    /// known before the first upload.
    func probe(in directory: String) {
        let path = directory + "/" + PathResolver.hiddenPrefix + "tmp-xattr-probe"
        Directory.remove(path)
        guard let fd = try? FileDescriptor.open(path, .writeOnly, options: [.create, .exclusive]) else { return }
        defer { fd.close(); Directory.remove(path) }
        do { try fd.setAttribute(Self.attribute, [0x31], path: path) } catch {
            if error.errno?.isUnsupported == true { unsupported.store(true, ordering: .relaxed) }
        }
    }

    /// Shared by the hashing threads of every body this store's server receives at once.
    let ringBudget = HashRingBudget(extraBuffers: 4)

    func recorder() -> DigestRecorder { DigestRecorder(algorithms, ringBudget: ringBudget) }

    /// Records what `recorder` saw for the open file `fd`, as it is now (call after the last write, before
    /// the data is synced, so one fsync covers both). Best effort: a file without a record is only unknown.
    @discardableResult
    func save(_ recorder: DigestRecorder, fd: FileDescriptor, path: String) -> DigestRecord? {
        guard let status = try? fd.status(path: path) else { return nil }
        let record = recorder.finish(for: FileStat(status))
        return save(record, fd: fd, path: path) ? record : nil
    }

    /// Stores `record` on `fd`; false when it could not be.
    @discardableResult
    func save(_ record: DigestRecord, fd: FileDescriptor, path: String) -> Bool {
        do {
            try fd.setAttribute(Self.attribute, record.encoded, path: path)
            return true
        } catch {
            if error.errno?.isUnsupported == true { unsupported.store(true, ordering: .relaxed) }
            return false
        }
    }

    /// The record of the open file `fd` when it still describes `stat`; nil when there is none, it is
    /// malformed, or the file changed since.
    /// Remembered per file version (``RecentRecords``).
    func load(fd: FileDescriptor, stat: FileStat) -> DigestRecord? {
        let version = RecentRecords.Version(stat), now = DispatchTime.now().uptimeNanoseconds
        if let known = recent.lookup(version, now: now) { return known }
        let bytes = try? fd.attribute(Self.attribute, limit: DigestRecord.maxEncodedBytes, path: "")
        let record = bytes.flatMap(DigestRecord.init(encoded:)).flatMap { $0.describes(stat) ? $0 : nil }
        recent.remember(record, for: version, now: now)
        return record
    }

    /// Reads the open file `fd` once from the start, hashing it, and records the result when the file did not
    /// change meanwhile. For files whose bytes did not stream through the server (a finished tus upload).
    @discardableResult
    func hashAndSave(fd: FileDescriptor, path: String) -> DigestRecord? {
        guard let before = try? fd.status(path: path) else { return nil }
        let recorder = recorder()
        guard (try? Self.read(fd, path: path, into: recorder.update)) != nil,
              let after = try? fd.status(path: path), FileStat(after) == FileStat(before) else { return nil }
        let record = recorder.finish(for: FileStat(after))
        return save(record, fd: fd, path: path) ? record : nil
    }

    /// ``hashAndSave(fd:path:)`` for the file at `path` (a finished tus upload in the server's own state
    /// folder), made durable before it is renamed into the tree. Its bytes were received in PATCH requests
    /// that may span server restarts, so they are hashed here, once.
    @discardableResult
    func hashAndSave(path: String) -> DigestRecord? {
        guard let fd = try? FileDescriptor.open(path, .readOnly, options: .noFollow) else { return nil }
        defer { fd.close() }
        let record = hashAndSave(fd: fd, path: path)
        try? fd.sync(path: path)
        return record
    }

    /// Feeds the whole file to `consume`, chunk by chunk, from offset 0; returns the byte count.
    @discardableResult
    static func read(_ fd: FileDescriptor, path: String, chunk: Int = 1 << 20,
                     into consume: (UnsafeRawBufferPointer) throws -> Void) throws -> Int64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while true {
            let n = try fd.read(into: buffer, at: offset, path: path)
            if n == 0 { return offset }
            try consume(UnsafeRawBufferPointer(rebasing: buffer[0 ..< n]))
            offset += Int64(n)
        }
    }
}

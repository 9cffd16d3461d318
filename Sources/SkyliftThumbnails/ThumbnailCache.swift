import SkyliftSystem
import Synchronization

/// Thumbnails on disk, one JPEG file per (file content, size), bounded in total bytes.
///
/// Entries are named by the maker (a hash of the file's key and the size), so a changed file gets a new name
/// and its old thumbnails age out. Each is written to a temp file and renamed in, without fsync: this is a
/// cache, and a file a power cut left short is caught on read (a JPEG ends with its EOI marker) and made again.
/// The index (names, sizes, last use) lives in memory; at start it is read from the folder, oldest first by
/// modification time, and temp files of an earlier run are removed. When the total passes the limit, the
/// least recently used entries are removed until it is under 90% of it. The most recently used entries are
/// also kept in memory (``HotThumbnails``), up to `memoryLimit` bytes.
final class ThumbnailCache: Sendable {
    let folder: String
    let limit: Int64
    private let hot: HotThumbnails

    /// Largest thumbnail file read back (a 512-pixel JPEG is far smaller).
    static let maxEntryBytes = 4 << 20
    static let suffix = ".jpg"
    static let tempSuffix = ".tmp"

    private struct Entry {
        var bytes: Int64
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var total: Int64 = 0
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Opens (creating, 0700) the cache in `folder` and reads its index.
    init(folder: String, limit: Int64, memoryLimit: Int = 0) throws(FileError) {
        self.folder = folder
        self.limit = limit
        hot = HotThumbnails(limit: memoryLimit)
        try PrivateFiles.createDirectory(folder)
        let dir = try FileDescriptor.open(folder, .readOnly, options: [.directory])
        defer { dir.close() }
        var found: [(name: String, bytes: Int64, time: Int64)] = []
        for entry in try dir.entries(path: folder) {
            if entry.name.hasSuffix(Self.tempSuffix) {
                try? dir.removeEntry(entry.name, path: folder + "/" + entry.name)
                continue
            }
            guard entry.name.hasSuffix(Self.suffix), let status = try? dir.status(of: entry.name), status.isRegular else { continue }
            found.append((entry.name, status.size, status.modifiedSeconds))
        }
        state.withLock { s in
            for item in found.sorted(by: { ($0.time, $0.name) < ($1.time, $1.name) }) {
                s.clock += 1
                s.entries[item.name] = Entry(bytes: item.bytes, lastUse: s.clock)
                s.total += item.bytes
            }
        }
        evictIfNeeded()
    }

    /// Bytes held now.
    var totalBytes: Int64 { state.withLock { $0.total } }

    /// Bytes of entries also held in memory now.
    var memoryBytes: Int { hot.totalBytes }

    /// Entries held now.
    var count: Int { state.withLock { $0.entries.count } }

    /// The thumbnail stored as `name`, or nil (a damaged entry is removed).
    func read(_ name: String) -> [UInt8]? {
        guard state.withLock({ s -> Bool in
            guard s.entries[name] != nil else { return false }
            s.clock += 1
            s.entries[name]?.lastUse = s.clock
            return true
        }) else { return nil }
        if let bytes = hot.get(name) { return bytes }
        let path = folder + "/" + name
        guard let bytes = Self.readWhole(path), Self.isWholeJPEG(bytes) else {
            forget(name)
            Directory.remove(path)
            return nil
        }
        hot.put(name, bytes)
        return bytes
    }

    /// Stores `bytes` as `name` (temp file, then rename), then evicts past the limit. Failures are ignored:
    /// the thumbnail is simply made again next time.
    func store(_ name: String, _ bytes: [UInt8]) {
        let path = folder + "/" + name
        let temp = path + ".\(UInt64.random(in: 0 ... .max))" + Self.tempSuffix
        do {
            let fd = try FileDescriptor.open(temp, .writeOnly, options: [.create, .exclusive], permissions: PrivateFiles.fileMode)
            defer { fd.close() }
            try bytes.withUnsafeBytes { raw in Result { () throws(FileError) in try fd.writeAll(raw, path: temp) } }.get()
            try Directory.rename(temp, to: path)
        } catch {
            Directory.remove(temp)
            return
        }
        state.withLock { s in
            s.clock += 1
            if let old = s.entries[name] { s.total -= old.bytes }
            s.entries[name] = Entry(bytes: Int64(bytes.count), lastUse: s.clock)
            s.total += Int64(bytes.count)
        }
        hot.put(name, bytes)
        evictIfNeeded()
    }

    private func forget(_ name: String) {
        state.withLock { s in
            if let old = s.entries.removeValue(forKey: name) { s.total -= old.bytes }
        }
        hot.remove(name)
    }

    /// Removes least recently used entries until the total is under 90% of the limit. The names are taken out of
    /// the index under the lock; the files are unlinked after it, so readers never wait on the disk.
    private func evictIfNeeded() {
        let victims: [String] = state.withLock { s in
            guard s.total > limit else { return [] }
            let target = limit / 10 * 9
            var out: [String] = []
            for (name, entry) in s.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                if s.total <= target { break }
                s.entries[name] = nil
                s.total -= entry.bytes
                out.append(name)
            }
            return out
        }
        for name in victims {
            hot.remove(name)
            Directory.remove(folder + "/" + name)
        }
    }

    private static func readWhole(_ path: String) -> [UInt8]? {
        guard let fd = try? FileDescriptor.open(path, .readOnly, options: [.noFollow]) else { return nil }
        defer { fd.close() }
        guard let status = try? fd.status(path: path), status.isRegular, status.size > 0,
              status.size <= Int64(maxEntryBytes) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(status.size))
        let n = bytes.withUnsafeMutableBytes { raw in (try? fd.read(into: raw, at: 0, path: path)) ?? -1 }
        return n == bytes.count ? bytes : nil
    }

    /// Starts with SOI and ends with EOI: what a JPEG cut short by a crash does not.
    static func isWholeJPEG(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[bytes.count - 2] == 0xFF && bytes[bytes.count - 1] == 0xD9
    }
}

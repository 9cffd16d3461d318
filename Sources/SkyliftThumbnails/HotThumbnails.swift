import Synchronization

/// The most recently used thumbnails kept in memory beside the disk cache, bounded in total bytes, so the
/// screenful a gallery shows again and again is answered without opening a cache file each time.
///
/// Only whole JPEGs the disk cache holds come here; an entry leaves when the disk cache drops it. Past the
/// limit the least recently used go until a quarter of it is free, so the sort that finds them runs seldom.
final class HotThumbnails: Sendable {
    let limit: Int

    private struct Entry {
        var bytes: [UInt8]
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var total = 0
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Keeps at most `limit` bytes of thumbnails; 0 keeps none.
    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Bytes held now.
    var totalBytes: Int { state.withLock { $0.total } }

    /// The thumbnail kept as `name`, marked as just used; nil when it is not in memory.
    func get(_ name: String) -> [UInt8]? {
        state.withLock { s in
            guard s.entries[name] != nil else { return nil }
            s.clock += 1
            s.entries[name]?.lastUse = s.clock
            return s.entries[name]?.bytes
        }
    }

    /// Keeps `bytes` as `name`; a thumbnail larger than an eighth of the limit is not kept.
    func put(_ name: String, _ bytes: [UInt8]) {
        guard bytes.count <= limit / 8 else { return }
        state.withLock { s in
            s.clock += 1
            if let old = s.entries[name] { s.total -= old.bytes.count }
            s.entries[name] = Entry(bytes: bytes, lastUse: s.clock)
            s.total += bytes.count
            guard s.total > limit else { return }
            let target = limit / 4 * 3
            for (victim, entry) in s.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                if s.total <= target { break }
                s.entries[victim] = nil
                s.total -= entry.bytes.count
            }
        }
    }

    /// Drops `name` (the disk cache no longer holds it).
    func remove(_ name: String) {
        state.withLock { s in
            if let old = s.entries.removeValue(forKey: name) { s.total -= old.bytes.count }
        }
    }
}

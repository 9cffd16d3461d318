import SkyliftHashing
import Synchronization

/// The running SHA-256 of the resumable writes this instance appended to, each with the number of bytes from
/// the start of the write it has seen (always whole parts), so finishing a write needs no second read of it.
///
/// A running digest is only taken out for an append that starts at the end of the parts it covers, and is put
/// back only when the append ends with its parts stored. A write continued on another instance, after a restart,
/// or pushed out past ``limit`` has none here: finishing it reads the completed object back once to hash it.
final class RunningDigests: Sendable {
    /// One write's digest. Only the append holding it (taken out of the table) touches it.
    final class Entry: @unchecked Sendable {
        // @unchecked: an entry is either in the table (untouched) or held by the one append that took it.
        var digest = Digest(.sha256)
        var covered: Int64 = 0
    }

    private struct State {
        var entries: [String: (entry: Entry, stamp: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int = 64) { self.limit = max(1, limit) }

    /// The digest of write `id` if it covers exactly `covered` bytes; a new one when `covered` is 0; else nil
    /// (a stale one is dropped).
    func take(_ id: String, covering covered: Int64) -> Entry? {
        let found = state.withLock { s -> Entry? in
            guard let held = s.entries.removeValue(forKey: id), held.entry.covered == covered else { return nil }
            return held.entry
        }
        return found ?? (covered == 0 ? Entry() : nil)
    }

    /// Keeps `entry` for write `id`; the least recently kept goes when the table is full.
    func keep(_ entry: Entry, for id: String) {
        state.withLock { s in
            s.clock += 1
            s.entries[id] = (entry, s.clock)
            if s.entries.count > limit, let oldest = s.entries.min(by: { $0.value.stamp < $1.value.stamp })?.key {
                s.entries[oldest] = nil
            }
        }
    }

    /// Forgets write `id` (finished or aborted).
    func forget(_ id: String) { _ = state.withLock { $0.entries.removeValue(forKey: id) } }
}

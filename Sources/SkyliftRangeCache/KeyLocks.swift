import Synchronization

/// One lock per cache key, made on demand and dropped when unused.
///
/// File work for one resource (creating its data file, flushing it and replacing its map) runs under that
/// resource's lock only, so it is ordered against other file work on the same resource while the cache-wide
/// lock, which every reader and writer of every resource takes, stays free for bookkeeping.
///
/// Lock order: a key lock is taken before the cache-wide lock, never while holding it.
final class KeyLocks: Sendable {
    private final class Gate: Sendable {
        let mutex = Mutex(())
    }

    private let table = Mutex<[String: (gate: Gate, users: Int)]>([:])

    /// Threads holding or waiting for `key`'s lock (tests use it to see a commit waiting).
    func users(of key: String) -> Int { table.withLock { $0[key]?.users ?? 0 } }

    func withLock<T: Sendable>(_ key: String, _ body: () throws -> T) rethrows -> T {
        let gate = table.withLock { t in
            var slot = t[key] ?? (Gate(), 0)
            slot.users += 1
            t[key] = slot
            return slot.gate
        }
        defer {
            table.withLock { t in
                guard let slot = t[key] else { return }
                t[key] = slot.users > 1 ? (slot.gate, slot.users - 1) : nil
            }
        }
        return try gate.mutex.withLock { _ in try body() }
    }
}

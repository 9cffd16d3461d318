import Synchronization

/// Answers worked out before, by key, for any thread: a request path's origin URL, a file version's digest record,
/// a photo's capture date. Bounded by a count: a new key past ``capacity`` empties the table first, so its memory
/// stays bounded whatever keys arrive, at the cost of working out again the answers still in use.
public final class BoundedMemo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Keys held at most.
    public let capacity: Int
    // Inlinable, so each user's module specializes the table for its own key and value: unspecialized, every lookup
    // looked up the generic `Mutex<[Key: Value]>` metadata at run time (2% of a small GET's time).
    @usableFromInline let table = Mutex<[Key: Value]>([:])

    @inlinable public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The answer remembered for `key`, or nil.
    @inlinable public subscript(_ key: Key) -> Value? { table.withLock { $0[key] } }

    /// Remembers `value` for `key`, replacing an older answer.
    @inlinable public func remember(_ value: Value, for key: Key) {
        table.withLock { all in
            if all.count >= capacity, all[key] == nil { all.removeAll(keepingCapacity: true) }
            all[key] = value
        }
    }

    /// Forgets `key`'s answer.
    @inlinable public func forget(_ key: Key) { _ = table.withLock { $0.removeValue(forKey: key) } }
}

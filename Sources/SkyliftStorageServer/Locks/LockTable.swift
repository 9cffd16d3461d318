import Foundation
import Synchronization

/// The live locks, kept where the store's servers can all see them: in memory for the folder store (they are
/// advisory and short-lived, so a restart simply releases them), in the bucket for an S3 store (``BucketLocks``),
/// so a lock taken through one instance holds on every other.
///
/// Bounded: at most `maxLocks` in all and `maxLocksPerResource` rooted at one path, each living at most
/// `maxTimeout` seconds with an owner of at most `maxOwnerBytes`, so the table stays under a few MiB whatever
/// clients send. A request reads the set once (``snapshot()``) and asks it all its questions; a change runs as one
/// ``update(_:)``, which a keeper may run again on a newer set when another instance changed it meanwhile.
final class LockTable: Sendable {
    /// Longest lifetime granted, and what `Infinite` or no `Timeout` header gets (RFC 4918 §10.7 lets the
    /// server choose; clients refresh before it runs out).
    static let maxTimeout = 3600
    static let maxLocks = 1024
    static let maxLocksPerResource = 32
    static let maxOwnerBytes = 4096

    private let keeper: any LockKeeper

    /// A table in this process's memory.
    convenience init() { self.init(keeper: MemoryLocks()) }

    init(keeper: any LockKeeper) { self.keeper = keeper }

    /// The locks as they stand now.
    func snapshot() throws(StoreFailure) -> LockSet { try keeper.read() }

    /// Runs `change` on the locks and keeps the result; its value is `change`'s. `change` must do nothing but change
    /// the set: it may run more than once.
    func update<T>(_ change: (inout LockSet) -> T) throws(StoreFailure) -> T { try keeper.update(change) }

    static func newToken() -> String { "opaquelocktoken:" + UUID().uuidString.lowercased() }
}

/// Where a ``LockTable`` keeps its set.
protocol LockKeeper: Sendable {
    func read() throws(StoreFailure) -> LockSet
    func update<T>(_ change: (inout LockSet) -> T) throws(StoreFailure) -> T
}

/// Locks in this process's memory, behind a mutex.
final class MemoryLocks: LockKeeper {
    private let locks = Mutex(LockSet())

    func read() -> LockSet { locks.withLock { $0 } }

    func update<T>(_ change: (inout LockSet) -> T) -> T { locks.withLock { change(&$0) } }
}

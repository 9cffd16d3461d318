import Foundation

/// The live WebDAV locks as a value: what a ``LockTable`` keeps, in memory or in a bucket, and every question and
/// change a request makes of them. Locks are indexed by root, so the checks every request makes look at the request
/// path and its ancestors only, not the whole set.
struct LockSet: Sendable {
    private(set) var byToken: [String: DAVLock] = [:]
    private var byRoot: [StoragePath: Set<String>] = [:]

    init(_ locks: [DAVLock] = []) {
        for lock in locks { insert(lock) }
    }

    var isEmpty: Bool { byToken.isEmpty }

    /// Why a lock was not added.
    enum Refusal {
        /// An existing lock conflicts (423).
        case conflict(DAVLock)
        /// The resource already has `maxLocksPerResource` locks, or the table `maxLocks`; `retryAfter` is
        /// seconds until the earliest of those expires.
        case full(perResource: Bool, retryAfter: Int)
    }

    private func live(_ tokens: Set<String>?, now: Date) -> [DAVLock] {
        (tokens ?? []).compactMap { byToken[$0] }.filter { $0.expires > now }
    }

    private mutating func insert(_ lock: DAVLock) {
        byToken[lock.token] = lock
        byRoot[lock.root, default: []].insert(lock.token)
    }

    /// Removes the lock `token`; false when there is none.
    @discardableResult
    mutating func remove(_ token: String) -> Bool {
        guard let lock = byToken.removeValue(forKey: token) else { return false }
        byRoot[lock.root]?.remove(token)
        if byRoot[lock.root]?.isEmpty == true { byRoot[lock.root] = nil }
        return true
    }

    /// Drops the locks that have expired.
    mutating func purge(now: Date = Date()) {
        for (token, lock) in byToken where lock.expires <= now { remove(token) }
    }

    /// Locks that protect `path`: rooted at it, or depth-infinity on an ancestor.
    func covering(_ path: StoragePath, now: Date = Date()) -> [DAVLock] {
        if isEmpty { return [] }
        var result: [DAVLock] = []
        var node: StoragePath? = path
        while let p = node {
            result += live(byRoot[p], now: now).filter { $0.covers(path) }
            node = p.parent
        }
        return result
    }

    /// Locks that a change to `path` must answer to: covering it, rooted inside it when `subtree`, and on its
    /// parent when the parent's membership changes.
    func affecting(_ path: StoragePath, subtree: Bool, membership: Bool, now: Date = Date()) -> [DAVLock] {
        if isEmpty { return [] }
        var result = covering(path, now: now)
        if subtree {
            // Bounded by maxLocks; only DELETE, MOVE and COPY over a folder ask.
            result += byToken.values.filter { $0.expires > now && $0.root != path && $0.root.isWithin(path) }
        }
        if membership, let parent = path.parent {
            result += live(byRoot[parent], now: now).filter { !$0.covers(path) }
        }
        return result
    }

    /// The live lock `token`, if any.
    func lock(_ token: String, now: Date = Date()) -> DAVLock? {
        byToken[token].flatMap { $0.expires > now ? $0 : nil }
    }

    /// Adds `lock` unless it conflicts with an existing one or a bound is reached.
    mutating func add(_ lock: DAVLock, now: Date = Date()) -> Refusal? {
        purge(now: now)
        let overlapping = covering(lock.root, now: now)
            + (lock.infinite ? byToken.values.filter { $0.root != lock.root && $0.root.isWithin(lock.root) } : [])
        if let conflict = overlapping.first(where: { $0.exclusive || lock.exclusive }) { return .conflict(conflict) }
        let here = live(byRoot[lock.root], now: now)
        if here.count >= LockTable.maxLocksPerResource { return .full(perResource: true, retryAfter: Self.wait(here, now)) }
        if byToken.count >= LockTable.maxLocks {
            return .full(perResource: false, retryAfter: Self.wait(Array(byToken.values), now))
        }
        insert(lock)
        return nil
    }

    /// Seconds until the first of `locks` expires.
    private static func wait(_ locks: [DAVLock], _ now: Date) -> Int {
        let first = locks.map(\.expires).min() ?? now
        return max(1, min(LockTable.maxTimeout, Int(first.timeIntervalSince(now).rounded(.up))))
    }

    /// Gives the live lock `token` a new lifetime of `timeout` seconds from now; nil when there is no such lock.
    mutating func refresh(_ token: String, timeout: Int, now: Date = Date()) -> DAVLock? {
        guard var l = byToken[token], l.expires > now else { return nil }
        l.timeout = timeout
        l.expires = now.addingTimeInterval(TimeInterval(timeout))
        byToken[token] = l
        return l
    }

    /// Drops every lock on `path` or below (the resources are gone).
    mutating func removeAll(under path: StoragePath) {
        for (token, lock) in byToken where lock.root.isWithin(path) { remove(token) }
    }
}

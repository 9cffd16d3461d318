import Foundation
import Synchronization

/// A WebDAV write lock (RFC 4918 §6).
struct DAVLock: Sendable {
    let token: String
    /// The locked resource.
    var root: StoragePath
    /// True for `Depth: infinity` (the whole subtree), false for depth 0.
    let infinite: Bool
    let exclusive: Bool
    /// The client's `<owner>` element as stand-alone XML (at most `LockTable.maxOwnerBytes`), echoed back in
    /// lockdiscovery. Kept as text: a parsed tree of many tiny elements costs far more memory than its bytes.
    let ownerXML: String?
    var timeout: Int
    var expires: Date

    /// Whether this lock protects `path` itself (not merely its membership).
    func covers(_ path: StoragePath) -> Bool {
        path == root || (infinite && path.isWithin(root))
    }
}

/// The live locks, in memory: they are advisory and short-lived, so a restart simply releases them.
///
/// Bounded: at most `maxLocks` in all and `maxLocksPerResource` rooted at one path, each living at most
/// `maxTimeout` seconds with an owner of at most `maxOwnerBytes`, so the table stays under a few MiB whatever
/// clients send. Locks are indexed by root, so the checks every request makes look at the request path and
/// its ancestors only, not the whole table.
final class LockTable: Sendable {
    /// Longest lifetime granted, and what `Infinite` or no `Timeout` header gets (RFC 4918 §10.7 lets the
    /// server choose; clients refresh before it runs out).
    static let maxTimeout = 3600
    static let maxLocks = 1024
    static let maxLocksPerResource = 32
    static let maxOwnerBytes = 4096

    /// Why a lock was not added.
    enum Refusal {
        /// An existing lock conflicts (423).
        case conflict(DAVLock)
        /// The resource already has `maxLocksPerResource` locks, or the table `maxLocks`; `retryAfter` is
        /// seconds until the earliest of those expires.
        case full(perResource: Bool, retryAfter: Int)
    }

    private struct State {
        var byToken: [String: DAVLock] = [:]
        var byRoot: [StoragePath: Set<String>] = [:]

        var isEmpty: Bool { byToken.isEmpty }

        func live(_ tokens: Set<String>?, now: Date) -> [DAVLock] {
            (tokens ?? []).compactMap { byToken[$0] }.filter { $0.expires > now }
        }

        mutating func remove(_ token: String) -> Bool {
            guard let lock = byToken.removeValue(forKey: token) else { return false }
            byRoot[lock.root]?.remove(token)
            if byRoot[lock.root]?.isEmpty == true { byRoot[lock.root] = nil }
            return true
        }

        mutating func purge(now: Date) {
            for (token, lock) in byToken where lock.expires <= now { _ = remove(token) }
        }

        /// Locks rooted at `path` or any ancestor that protect `path`.
        func covering(_ path: StoragePath, now: Date) -> [DAVLock] {
            var result: [DAVLock] = []
            var node: StoragePath? = path
            while let p = node {
                result += live(byRoot[p], now: now).filter { $0.covers(path) }
                node = p.parent
            }
            return result
        }
    }

    private let state = Mutex(State())

    /// Locks that protect `path`: rooted at it, or depth-infinity on an ancestor.
    func covering(_ path: StoragePath) -> [DAVLock] {
        state.withLock { $0.isEmpty ? [] : $0.covering(path, now: Date()) }
    }

    /// Locks that a change to `path` must answer to: covering it, rooted inside it when `subtree`, and on its
    /// parent when the parent's membership changes.
    func affecting(_ path: StoragePath, subtree: Bool, membership: Bool) -> [DAVLock] {
        state.withLock { s in
            if s.isEmpty { return [] }
            let now = Date()
            var result = s.covering(path, now: now)
            if subtree {
                // Bounded by maxLocks; only DELETE, MOVE and COPY over a folder ask.
                result += s.byToken.values.filter { $0.expires > now && $0.root != path && $0.root.isWithin(path) }
            }
            if membership, let parent = path.parent {
                result += s.live(s.byRoot[parent], now: now).filter { !$0.covers(path) }
            }
            return result
        }
    }

    func lock(_ token: String) -> DAVLock? {
        state.withLock { s in s.byToken[token].flatMap { $0.expires > Date() ? $0 : nil } }
    }

    /// Adds `lock` unless it conflicts with an existing one or a bound is reached.
    func add(_ lock: DAVLock) -> Refusal? {
        state.withLock { s in
            let now = Date()
            s.purge(now: now)
            let overlapping = s.covering(lock.root, now: now)
                + (lock.infinite ? s.byToken.values.filter { $0.root != lock.root && $0.root.isWithin(lock.root) } : [])
            if let conflict = overlapping.first(where: { $0.exclusive || lock.exclusive }) { return .conflict(conflict) }
            let here = s.live(s.byRoot[lock.root], now: now)
            if here.count >= Self.maxLocksPerResource { return .full(perResource: true, retryAfter: Self.wait(here, now)) }
            if s.byToken.count >= Self.maxLocks {
                return .full(perResource: false, retryAfter: Self.wait(Array(s.byToken.values), now))
            }
            s.byToken[lock.token] = lock
            s.byRoot[lock.root, default: []].insert(lock.token)
            return nil
        }
    }

    /// Seconds until the first of `locks` expires.
    private static func wait(_ locks: [DAVLock], _ now: Date) -> Int {
        let first = locks.map(\.expires).min() ?? now
        return max(1, min(maxTimeout, Int(first.timeIntervalSince(now).rounded(.up))))
    }

    func refresh(_ token: String, timeout: Int) -> DAVLock? {
        state.withLock { s in
            guard var l = s.byToken[token], l.expires > Date() else { return nil }
            l.timeout = timeout
            l.expires = Date().addingTimeInterval(TimeInterval(timeout))
            s.byToken[token] = l
            return l
        }
    }

    @discardableResult
    func remove(_ token: String) -> Bool { state.withLock { $0.remove(token) } }

    /// Drops every lock on `path` or below (the resources are gone).
    func removeAll(under path: StoragePath) {
        state.withLock { s in
            for (token, lock) in s.byToken where lock.root.isWithin(path) { _ = s.remove(token) }
        }
    }

    static func newToken() -> String { "opaquelocktoken:" + UUID().uuidString.lowercased() }
}

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
    /// The client's `<owner>` element as stand-alone XML, echoed back in lockdiscovery.
    let ownerXML: String?
    var timeout: Int
    var expires: Date

    /// Whether this lock protects `path` itself (not merely its membership).
    func covers(_ path: StoragePath) -> Bool {
        path == root || (infinite && path.isWithin(root))
    }
}

/// The live locks, in memory: they are advisory and short-lived, so a restart simply releases them.
final class LockTable: Sendable {
    static let maxTimeout = 7 * 24 * 3600
    private let locks = Mutex<[String: DAVLock]>([:])

    private func live(_ all: inout [String: DAVLock]) -> [DAVLock] {
        let now = Date()
        all = all.filter { $0.value.expires > now }
        return Array(all.values)
    }

    /// Locks that protect `path`: rooted at it, or depth-infinity on an ancestor.
    func covering(_ path: StoragePath) -> [DAVLock] {
        locks.withLock { all in live(&all).filter { $0.covers(path) } }
    }

    /// Locks that a change to `path` must answer to: covering it, rooted inside it when `subtree`, and on its
    /// parent when the parent's membership changes.
    func affecting(_ path: StoragePath, subtree: Bool, membership: Bool) -> [DAVLock] {
        locks.withLock { all in
            live(&all).filter { lock in
                lock.covers(path) || (subtree && lock.root.isWithin(path))
                    || (membership && path.parent.map { lock.root == $0 } == true)
            }
        }
    }

    func lock(_ token: String) -> DAVLock? { locks.withLock { all in live(&all).first { $0.token == token } } }

    /// Adds `lock` unless it conflicts with an existing one; returns the conflicting lock otherwise.
    func add(_ lock: DAVLock) -> DAVLock? {
        locks.withLock { all in
            let conflict = live(&all).first { other in
                let overlap = other.covers(lock.root) || (lock.infinite && other.root.isWithin(lock.root))
                return overlap && (other.exclusive || lock.exclusive)
            }
            if conflict == nil { all[lock.token] = lock }
            return conflict
        }
    }

    func refresh(_ token: String, timeout: Int) -> DAVLock? {
        locks.withLock { all in
            guard var l = all[token], l.expires > Date() else { return nil }
            l.timeout = timeout
            l.expires = Date().addingTimeInterval(TimeInterval(timeout))
            all[token] = l
            return l
        }
    }

    @discardableResult
    func remove(_ token: String) -> Bool { locks.withLock { $0.removeValue(forKey: token) != nil } }

    /// Drops every lock on `path` or below (the resources are gone).
    func removeAll(under path: StoragePath) {
        locks.withLock { all in all = all.filter { !$0.value.root.isWithin(path) } }
    }

    static func newToken() -> String { "opaquelocktoken:" + UUID().uuidString.lowercased() }
}

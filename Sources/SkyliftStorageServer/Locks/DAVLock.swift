import Foundation

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

import Foundation

/// The WebDAV locks of a bucket, kept in it (the state object `.skylift/state/locks`), so a lock taken through one
/// instance holds on every other serving the bucket.
///
/// A request reads the object once (a missing one is no locks); a change reads it, changes the set, and writes it
/// back only over the ETag it read (`If-Match`, or `If-None-Match: *` for the first), reading and changing again
/// when another instance wrote first. So two instances granting exclusive locks on one file at once cannot both
/// succeed. Expired locks are dropped whenever the set is written.
struct BucketLocks: LockKeeper {
    let backend: BucketBackend
    /// The state object's name.
    static let name = "locks"

    /// A lock as the object stores it.
    private struct Stored: Codable {
        var token: String
        var root: [String]
        var infinite: Bool
        var exclusive: Bool
        var owner: String?
        var timeout: Int
        var expires: Double

        init(_ lock: DAVLock) {
            (token, root, infinite, exclusive) = (lock.token, lock.root.segments, lock.infinite, lock.exclusive)
            (owner, timeout, expires) = (lock.ownerXML, lock.timeout, lock.expires.timeIntervalSince1970)
        }

        var lock: DAVLock {
            DAVLock(token: token, root: StoragePath(segments: root, rootPath: ""), infinite: infinite, exclusive: exclusive,
                    ownerXML: owner, timeout: timeout, expires: Date(timeIntervalSince1970: expires))
        }
    }

    func read() throws(StoreFailure) -> LockSet { try Self.decode(backend.readState(Self.name, what: Self.what)?.bytes) }

    func update<T>(_ change: (inout LockSet) -> T) throws(StoreFailure) -> T {
        var result: T?
        do {
            try backend.updateState(Self.name, what: Self.what) { bytes in
                var set = try Self.decode(bytes)
                let before = Self.encode(set)
                result = change(&set)
                set.purge()
                let after = Self.encode(set)
                return after == before ? nil : after
            }
        } catch let failure as StoreFailure {
            throw failure
        } catch {
            throw StoreFailure(status: 502, message: "cannot change \(Self.what): \(error)")
        }
        guard let result else { throw StoreFailure(status: 502, message: "\(Self.what) was not read") }
        return result
    }

    /// The lock table as messages name it.
    private static let what = "the bucket's lock table"

    /// The set the object holds (none when there is no object).
    private static func decode(_ bytes: [UInt8]?) throws(StoreFailure) -> LockSet {
        guard let bytes else { return LockSet() }
        guard let stored = try? JSONDecoder().decode([Stored].self, from: Data(bytes)) else {
            throw StoreFailure(status: 502, message: "\(what) (.skylift/state/\(name)) does not parse")
        }
        return LockSet(stored.map(\.lock))
    }

    /// The set as stored: sorted by token, so an unchanged set gives the same bytes.
    private static func encode(_ set: LockSet) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let locks = set.byToken.values.sorted { $0.token < $1.token }.map(Stored.init)
        return (try? encoder.encode(locks)).map(Array.init) ?? []
    }
}

import Foundation
import SkyliftSystem

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
    /// Changes tried before giving up when other instances keep changing the set first.
    static let attempts = 8

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

    func read() throws(StoreFailure) -> LockSet { try load().set }

    func update<T>(_ change: (inout LockSet) -> T) throws(StoreFailure) -> T {
        for _ in 0 ..< Self.attempts {
            let (loaded, etag) = try load()
            var set = loaded
            let before = Self.encode(set)
            let result = change(&set)
            set.purge()
            let after = Self.encode(set)
            if after == before { return result }
            let store = backend.store
            let written = try run("change") {
                if let etag { try await store.putIfMatch(Self.name, after, etag: etag) } else { try await store.putIfAbsent(Self.name, after) }
            }
            if case .stored = written { return result }
        }
        throw StoreFailure(status: 503, message: "the bucket's lock table changed under every one of \(Self.attempts) attempts; try again")
    }

    private func load() throws(StoreFailure) -> (set: LockSet, etag: String?) {
        let store = backend.store
        guard let state = try run("read", { try await store.readState(Self.name) }) else { return (LockSet(), nil) }
        guard let stored = try? JSONDecoder().decode([Stored].self, from: Data(state.bytes)) else {
            throw StoreFailure(status: 502, message: "the bucket's lock table (.skylift/state/\(Self.name)) does not parse")
        }
        return (LockSet(stored.map(\.lock)), state.etag)
    }

    /// The set as stored: sorted by token, so an unchanged set gives the same bytes.
    private static func encode(_ set: LockSet) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let locks = set.byToken.values.sorted { $0.token < $1.token }.map(Stored.init)
        return (try? encoder.encode(locks)).map(Array.init) ?? []
    }

    private func run<T: Sendable>(_ operation: String, _ work: @escaping @Sendable () async throws -> T) throws(StoreFailure) -> T {
        do {
            return try backend.executor.runBlocking(timeout: backend.timeout, work)
        } catch is BlockingExecutor.TimedOut {
            throw StoreFailure(status: 504, message: "the bucket did not answer in \(Int(backend.timeout)) s to \(operation) its lock table")
        } catch {
            throw StoreFailure(status: 502, message: "cannot \(operation) the bucket's lock table: \(error)")
        }
    }
}

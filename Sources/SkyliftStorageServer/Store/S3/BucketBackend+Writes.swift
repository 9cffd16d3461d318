import Foundation
import SkyliftCore
import SkyliftHTTPServer

extension BucketBackend {
    /// A bucket has no free space to check.
    func spaceRefusal(for length: Int64?, at path: StoragePath) -> HTTPResponse? { nil }

    /// A PUT body stored as the file `path` by `S3Store.write`, which replaces the file only once every byte is in
    /// (and matches the client's `Content-Digest`): a body cut short or refused stores nothing.
    func writer(_ path: StoragePath, existed: Bool, length: Int64?, maxSize: Int64, expectedSHA256: [UInt8]?) throws(StoreFailure) -> any HTTPBodyReceiver {
        let store = store, key = Self.key(path)
        return BucketIntake(executor: executor, maxSize: maxSize, job: { body in
            try await store.write(key, body: body, length: length, expectedSHA256: expectedSHA256, keepingProperties: existed)
        }, respond: { outcome in
            switch outcome {
            case let .success(entry):
                var headers = HTTPHeaders()
                if let etag = entry.info.etag { headers.add("ETag", etag) }
                return existed ? HTTPResponse(status: 204, headers: headers) : .text(201, "created", headers: headers)
            case let .failure(error as S3StoreError):
                if case .digestMismatch = error.reason {
                    return .text(400, "body does not match its Content-Digest", headers: [ServerDigest.mismatchHeader: "sha-256=10"])
                }
                return .text(502, "cannot store \(path.relative) in the bucket: \(error)")
            case let .failure(error):
                return .text(502, "cannot store \(path.relative) in the bucket: \(error)")
            }
        })
    }

    func remove(_ path: StoragePath) throws(StoreFailure) {
        let key = Self.key(path), store = store
        try wait("delete", path) { try await store.delete(key) }
        try keepParent(of: path)
    }

    func makeFolder(_ path: StoragePath) throws(StoreFailure) {
        let key = Self.key(path), store = store
        _ = try wait("create", path) { try await store.makeFolder(key) }
    }

    /// Reads the set from the object's metadata, changes it, and writes it back over the object read; read again
    /// when the object was written meanwhile, a few times.
    func updateProperties(_ path: StoragePath, _ change: (inout [DeadProperties.Entry]) -> Bool) throws(StoreFailure) {
        let key = Self.key(path), store = store
        for _ in 0 ..< 4 {
            guard let record = try wait("read properties of", path, { try await store.propertyRecord(key, forChange: true) }) else {
                throw StoreFailure(status: 404, message: "not found: \(path.relative)")
            }
            var entries = record.bytes.map(DeadProperties.decode) ?? []
            guard change(&entries) else { return }
            let encoded = entries.isEmpty ? nil : (try? JSONEncoder().encode(entries)).map(Array.init)
            do {
                if try wait("store properties of", path, { try await store.replaceProperties(record, with: encoded) }) { return }
            } catch where error.status == 502 && encoded.map({ $0.count > S3Store.maxPropertyBytes }) == true {
                throw StoreFailure(status: 507, message: "the properties of \(path.relative) take more than a bucket keeps")
            }
        }
        throw StoreFailure(status: 503, message: "\(path.relative) kept changing while its properties were stored; try again")
    }

    func createEmpty(_ path: StoragePath) throws(StoreFailure) {
        let key = Self.key(path), store = store
        _ = try wait("create", path) { try await store.write(key, body: AsyncStream<[UInt8]> { $0.finish() }) }
    }

    func transfer(_ source: StoragePath, to destination: StoragePath, move: Bool, recursive: Bool,
                  overwrite: Bool) throws(StoreFailure) -> Bool {
        let method = move ? "MOVE" : "COPY"
        guard let item = try item(source) else { throw StoreFailure(status: 404, message: "not found: \(source.relative)") }
        guard let parent = destination.parent, try self.item(parent)?.isFolder == true else {
            throw StoreFailure(status: 409, message: "destination's parent collection is missing")
        }
        // No links in a bucket: paths overlap exactly when one holds the other.
        if source == destination { throw StoreFailure(status: 403, message: "source and destination are the same") }
        if item.isFolder && destination.isWithin(source) { throw StoreFailure(status: 403, message: "cannot \(method) a collection into itself") }
        if source.isWithin(destination) { throw StoreFailure(status: 403, message: "the destination holds the source") }
        let existing = try self.item(destination)
        if existing != nil && !overwrite { throw StoreFailure(status: 412, message: "destination exists and Overwrite is F") }
        let store = store, from = Self.key(source), to = Self.key(destination)
        // A file over a file is replaced by the service in one CopyObject; a folder on either side is deleted first
        // (RFC 4918 §9.8.4), since copying keys into it would keep its other members.
        if let existing, existing.isFolder || item.isFolder { try remove(destination) }
        if item.isFolder && !recursive {
            try makeFolder(destination)
        } else if move {
            try wait("move", source) { try await store.move(from, to: to) }
            try keepParent(of: source)
        } else {
            try wait("copy", source) { try await store.copy(from, to: to) }
        }
        return existing != nil
    }

    /// S3 has no folders: a folder without a marker lives on its keys, and would vanish with the last file taken
    /// out of it. A folder stays until it is deleted itself.
    private func keepParent(of path: StoragePath) throws(StoreFailure) {
        guard let parent = path.parent, !parent.isRoot else { return }
        let key = Self.key(parent), store = store
        _ = try wait("keep the folder of", path) { try await store.makeFolder(key) }
    }
}

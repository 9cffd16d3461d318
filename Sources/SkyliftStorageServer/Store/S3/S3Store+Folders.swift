import Foundation
import SkyliftCore
import SkyliftHashing
import SkyliftS3

extension S3Store {
    /// Makes the folder `path` as its marker object `<path>/`, written with `If-None-Match: *`: of two callers
    /// (or instances) making the same folder, one is told `created` and the other `alreadyExists`. A folder that
    /// exists without a marker (keys below it) is `alreadyExists` too; a file at `path` is a `conflict`.
    /// Parents are not checked: S3 has no folders to need them.
    public func makeFolder(_ path: String) async throws -> S3StoreFolderCreation {
        let path = try Self.checked(path, operation: "makeFolder")
        if let entry = try await stat(path) {
            guard entry.kind == .folder else { throw S3StoreError(operation: "makeFolder", path: path, reason: .conflict) }
            return .alreadyExists
        }
        return try await writeMarker(path, operation: "makeFolder") ? .created : .alreadyExists
    }

    /// Writes the marker of folder `path` unless one is there (`If-None-Match: *`); true when this call wrote it.
    func writeMarker(_ path: String, operation: String) async throws -> Bool {
        let empty: [UInt8] = []
        do {
            try await client.putObject(bucket: bucket, key: folderKey(path), body: .bytes(empty), sha256: Digest.hash(.sha256, empty),
                                       contentType: "application/x-directory", metadata: [:], condition: .absent)
            return true
        } catch let error as S3Error where Self.isConditionFailure(error) {
            return false
        } catch {
            throw S3StoreError.wrapping(error, operation: operation, path: path)
        }
    }

    /// Removes the file `path`, or the folder `path` with every key below it (its marker last, so a delete cut
    /// short leaves the folder listed with what is left). The root cannot be removed.
    public func delete(_ path: String) async throws {
        let path = try Self.checked(path, operation: "delete")
        guard !path.isEmpty else { throw S3StoreError(operation: "delete", path: path, reason: .invalidPath) }
        guard let entry = try await stat(path) else {
            throw S3StoreError(operation: "delete", path: path, status: 404, reason: .notFound)
        }
        if entry.kind == .file {
            try await remove(key: key(path), operation: "delete", path: path)
            return
        }
        try await removeFolder(path, operation: "delete")
    }

    /// Removes every key below the folder `path`, its marker last.
    func removeFolder(_ path: String, operation: String) async throws {
        let marker = folderKey(path)
        for object in try await keys(under: marker, operation: operation, path: path) where object.key != marker {
            try await remove(key: object.key, operation: operation, path: path)
        }
        try await remove(key: marker, operation: operation, path: path)
    }

    // MARK: State objects

    /// Stores `bytes` as the state object `name` (`<prefix>.skylift/state/<name>`) only if there is none yet
    /// (`If-None-Match: *`): the bucket-wide "create once" for locks and the like.
    public func putIfAbsent(_ name: String, _ bytes: [UInt8]) async throws -> S3StoreConditionalWrite {
        try await putState(name, bytes, condition: .absent)
    }

    /// Replaces the state object `name` with `bytes` only while it has ETag `etag` (`If-Match`): a
    /// read-modify-write that loses to a concurrent writer instead of overwriting it. A missing object fails the
    /// condition as well.
    public func putIfMatch(_ name: String, _ bytes: [UInt8], etag: String) async throws -> S3StoreConditionalWrite {
        try await putState(name, bytes, condition: .matching(etag))
    }

    /// The bytes and ETag of the state object `name`, or nil when there is none.
    public func readState(_ name: String) async throws -> (bytes: [UInt8], etag: String)? {
        let name = try Self.checked(name, operation: "state")
        return try await systemObject(systemKey("state/" + name), operation: "state").map { ($0.bytes, $0.etag) }
    }

    /// Removes the state object `name`; one already gone is no error.
    public func deleteState(_ name: String) async throws {
        let name = try Self.checked(name, operation: "state")
        try await remove(key: systemKey("state/" + name), operation: "state", path: name)
    }

    private func putState(_ name: String, _ bytes: [UInt8], condition: S3WriteCondition) async throws -> S3StoreConditionalWrite {
        let name = try Self.checked(name, operation: "state")
        guard !name.isEmpty else { throw S3StoreError(operation: "state", path: name, reason: .invalidPath) }
        do {
            let etag = try await client.putObject(bucket: bucket, key: systemKey("state/" + name), body: .bytes(bytes),
                                                  sha256: Digest.hash(.sha256, bytes), contentType: "application/octet-stream",
                                                  metadata: [:], condition: condition)
            return .stored(etag: etag)
        } catch let error as S3Error where Self.isConditionFailure(error) || (condition != .absent && error.status == 404) {
            return .preconditionFailed
        } catch {
            throw S3StoreError.wrapping(error, operation: "state", path: name)
        }
    }

    /// 412, or AWS's 409 `ConditionalRequestConflict` (a concurrent conditional write won).
    static func isConditionFailure(_ error: S3Error) -> Bool {
        error.status == 412 || error.code == "ConditionalRequestConflict"
    }
}

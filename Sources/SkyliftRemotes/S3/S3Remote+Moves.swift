import Foundation
import SkyliftCore
import SkyliftS3

extension S3Remote {
    /// S3 has no rename: each object is copied on the service (CopyObject, or UploadPartCopy above 5 GiB)
    /// and the original deleted once its copy exists. A folder is every key under `from/`.
    public func move(_ from: String, to: String) async throws {
        guard from != to else { return }
        for (source, target, size) in try await pairs(from, to: to) {
            try await copyObject(source, to: target, size: size, name: from)
            do {
                try await client.deleteObject(bucket: location.bucket, key: source)
            } catch {
                throw remoteError(error, method: "DELETE", name: from)
            }
        }
    }

    public func copy(_ from: String, to: String) async throws {
        guard from != to else { return }
        for (source, target, size) in try await pairs(from, to: to) {
            try await copyObject(source, to: target, size: size, name: from)
        }
    }

    /// The keys to copy for `from` → `to` with their sizes: the object itself, else everything under the
    /// folder `from/`. Neither is `404`.
    private func pairs(_ from: String, to: String) async throws -> [(source: String, target: String, size: Int64)] {
        if let object = try await stat(from), let length = object.info.length {
            return [(key(from), key(to), length)]
        }
        let prefix = key(from + "/")
        let objects: [S3ObjectSummary]
        do {
            objects = try await client.listObjects(bucket: location.bucket, prefix: prefix)
        } catch {
            throw remoteError(error, method: "GET", name: from)
        }
        guard !objects.isEmpty else { throw RemoteError.status(404, method: "COPY", url: url(from), detail: nil) }
        let targetPrefix = key(to + "/")
        return objects.map { ($0.key, targetPrefix + $0.key.dropFirst(prefix.count), $0.size) }
    }

    private func copyObject(_ source: String, to target: String, size: Int64, name: String) async throws {
        do {
            try await client.copyObject(bucket: location.bucket, from: source, to: target, size: size)
        } catch {
            throw remoteError(error, method: "COPY", name: name)
        }
    }
}

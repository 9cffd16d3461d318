import Foundation
import SkyliftHTTPClient
import SkyliftCore

/// What a write asks of the object already at its key.
public enum S3WriteCondition: Sendable, Hashable {
    /// Replace whatever is there.
    case always
    /// Only where no object has the key (`If-None-Match: *`).
    case absent
    /// Only while the object at the key has this ETag (`If-Match`).
    case matching(String)
}

/// An object's HEAD: length, type, ETag and time, with the user metadata stored beside it.
public struct S3ObjectHead: Sendable, Hashable {
    /// Length, content type, ETag and modification time.
    public var info: ContentInfo
    /// The `x-amz-meta-*` headers, names lower-cased and without the prefix.
    public var metadata: [String: String]
}

extension S3Client {
    /// The prefix of user-metadata header names.
    static let metadataPrefix = "x-amz-meta-"

    /// Length, type, ETag, time and user metadata of object `key`.
    public func headObjectMetadata(bucket: String, key: String) async throws -> S3ObjectHead {
        let (info, headers) = try await head(bucket: bucket, key: key)
        var metadata: [String: String] = [:]
        for field in headers where field.name.lowercased().hasPrefix(Self.metadataPrefix) {
            metadata[String(field.name.lowercased().dropFirst(Self.metadataPrefix.count))] = field.value
        }
        return S3ObjectHead(info: info, metadata: metadata)
    }

    /// Stores `body` as one object under `condition`, with `metadata` as `x-amz-meta-*`; returns its ETag.
    ///
    /// A condition that does not hold fails with `S3Error` status 412 (`PreconditionFailed`); some services answer
    /// an `If-Match` on a missing key with 404 instead. With `sha256` the payload is signed and checked.
    @discardableResult
    public func putObject(bucket: String, key: String, body: HTTPClientRequest.Body, sha256: [UInt8]?, contentType: String?,
                          metadata: [String: String], condition: S3WriteCondition) async throws -> String {
        var call = Call(method: "PUT", bucket: bucket, key: key, body: body)
        Self.attach(sha256: sha256, to: &call)
        if let contentType { call.headers.set("Content-Type", contentType) }
        Self.attach(metadata: metadata, to: &call)
        switch condition {
        case .always: break
        case .absent: call.headers.set("If-None-Match", "*")
        // Unquoted: Ceph RGW 16 compares the header's bytes with the stored ETag, which has no quotes, and refuses
        // a quoted one; moto takes either (AWS is not tested here).
        case let .matching(etag): call.headers.set("If-Match", etag.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        }
        let response = try await send(call)
        _ = try? await response.collect(upTo: 64 * 1024)
        return response.headers["ETag"] ?? ""
    }

    /// The first key under `prefix` (in the service's order), or nil when there is none: one listing request.
    public func firstKey(bucket: String, prefix: String) async throws -> String? {
        let call = Call(method: "GET", bucket: bucket, key: nil, query: [("list-type", "2"), ("max-keys", "1"), ("prefix", prefix)])
        let root = try await document(try await send(call), call: call)
        return root.all("Contents").compactMap { $0["Key"] }.first
    }

    /// Adds `metadata` to `call` as `x-amz-meta-*` headers.
    static func attach(metadata: [String: String], to call: inout Call) {
        for (name, value) in metadata.sorted(by: { $0.key < $1.key }) {
            call.headers.set(metadataPrefix + name.lowercased(), value)
        }
    }
}

import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftCore

/// One entry of a bucket listing.
public struct S3ObjectSummary: Sendable, Hashable {
    /// The object's full key.
    public var key: String
    /// The object's length in bytes.
    public var size: Int64
    /// The object's ETag, quoted as the service lists it.
    public var etag: String
    /// When the object was last written, if the listing says.
    public var lastModified: Date?
}

extension S3Client {
    /// Length, type, ETag and modification time of an object.
    public func headObject(bucket: String, key: String) async throws -> ContentInfo {
        try await statObject(bucket: bucket, key: key).info
    }

    /// `headObject` plus the object's SHA-256 when the store holds one for the whole object (objects stored
    /// by a single PUT with a checksum; a multipart object's checksum covers its parts' checksums instead).
    public func statObject(bucket: String, key: String) async throws -> (info: ContentInfo, sha256: [UInt8]?) {
        let (info, headers) = try await head(bucket: bucket, key: key)
        return (info, Self.objectSHA256(headers))
    }

    /// HEAD of `key` with checksums asked for: the object's content info and every header of the answer.
    func head(bucket: String, key: String) async throws -> (info: ContentInfo, headers: HTTPHeaders) {
        var call = Call(method: "HEAD", bucket: bucket, key: key)
        call.headers.set("x-amz-checksum-mode", "ENABLED")
        let response = try await send(call)
        guard let length = response.headers.integer("Content-Length") else {
            throw S3Error.invalidResponse(resource: call.resource, reason: "HEAD answer has no Content-Length")
        }
        let info = ContentInfo(length: length, contentType: response.headers["Content-Type"], etag: response.headers["ETag"],
                               lastModified: response.headers["Last-Modified"].flatMap(HTTPDate.parse))
        return (info, response.headers)
    }

    /// The SHA-256 of the whole object's bytes from `x-amz-checksum-sha256` (sent with `x-amz-checksum-mode:
    /// ENABLED`); nil for a multipart object, whose ETag ends in "-<parts>" and whose checksum covers its parts'
    /// checksums, not the bytes.
    public static func objectSHA256(_ headers: HTTPHeaders) -> [UInt8]? {
        let multipart = headers["ETag"]?.contains("-") ?? false
        let checksum = headers["x-amz-checksum-sha256"].flatMap { value in
            multipart || value.contains("-") || headers["x-amz-checksum-type"] == "COMPOSITE" ? nil : Data(base64Encoded: value)
        }
        return checksum.flatMap { $0.count == 32 ? Array($0) : nil }
    }

    /// The object's bytes, or those of `range`; with `ifMatch`, only while the object still has that ETag
    /// (otherwise `S3Error` with code `PreconditionFailed`). With `checksums`, a whole-object answer carries the
    /// object's stored checksum (see ``objectSHA256(_:)``). The body streams from the returned response.
    public func getObject(bucket: String, key: String, range: ByteRange? = nil, ifMatch: String? = nil,
                          checksums: Bool = false) async throws -> HTTPClientResponse {
        var call = Call(method: "GET", bucket: bucket, key: key, accepted: [200, 206])
        if checksums { call.headers.set("x-amz-checksum-mode", "ENABLED") }
        if let range {
            guard !range.isEmpty else {
                throw S3Error.configuration("empty byte range requested from s3://\(bucket)/\(key)")
            }
            call.headers.set("Range", "bytes=\(range.offset)-\(range.last)")
        }
        if let ifMatch { call.headers.set("If-Match", ifMatch) }
        return try await send(call)
    }

    /// Stores `body` (`length` bytes) as one object; returns its ETag.
    ///
    /// With `sha256` (the body's digest) the payload is signed and the service checks it
    /// (`x-amz-checksum-sha256`); without, the body goes unsigned.
    @discardableResult
    public func putObject(bucket: String, key: String, body: HTTPClientRequest.Body, sha256: [UInt8]? = nil,
                          contentType: String? = nil) async throws -> String {
        var call = Call(method: "PUT", bucket: bucket, key: key, body: body)
        Self.attach(sha256: sha256, to: &call)
        if let contentType { call.headers.set("Content-Type", contentType) }
        let response = try await send(call)
        _ = try? await response.collect(upTo: 64 * 1024)
        return response.headers["ETag"] ?? ""
    }

    /// Removes the object `key`; a key that is not there is no error on most services (S3 answers 204).
    public func deleteObject(bucket: String, key: String) async throws {
        let response = try await send(Call(method: "DELETE", bucket: bucket, key: key, accepted: [200, 204]))
        _ = try? await response.collect(upTo: 64 * 1024)
    }

    /// Creates `bucket` in the configured region.
    public func createBucket(_ bucket: String) async throws {
        var call = Call(method: "PUT", bucket: bucket, key: nil)
        if configuration.region != "us-east-1" {
            let xml = Array(("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>"
                + S3XMLElement.escape(configuration.region) + "</LocationConstraint></CreateBucketConfiguration>").utf8)
            call.body = .bytes(xml)
            call.payloadHash = Digest.hash(.sha256, xml).hexString
        }
        let response = try await send(call)
        _ = try? await response.collect(upTo: 64 * 1024)
    }

    /// Every object whose key starts with `prefix`, following continuation tokens.
    public func listObjects(bucket: String, prefix: String = "") async throws -> [S3ObjectSummary] {
        try await listObjects(bucket: bucket, prefix: prefix, delimiter: nil).objects
    }

    /// Objects under `prefix`; with a `delimiter`, keys that continue past it are rolled up into common
    /// prefixes (the "folders" one level down) instead.
    public func listObjects(bucket: String, prefix: String, delimiter: String?) async throws
        -> (objects: [S3ObjectSummary], commonPrefixes: [String]) {
        var objects: [S3ObjectSummary] = []
        var prefixes: [String] = []
        var token: String?
        repeat {
            let page = try await listObjectsPage(bucket: bucket, prefix: prefix, delimiter: delimiter, after: token)
            objects += page.objects
            prefixes += page.commonPrefixes
            token = page.next
        } while token != nil
        return (objects, prefixes)
    }

    /// One page of a listing (at most `maxKeys`, or the service's 1,000, keys): pass `next` of one page as `after`
    /// to get the following one; `next` is nil on the last page. For walking a bucket of any size in bounded memory.
    public func listObjectsPage(bucket: String, prefix: String, delimiter: String? = nil, after token: String?,
                                maxKeys: Int? = nil) async throws -> (objects: [S3ObjectSummary], commonPrefixes: [String], next: String?) {
        var call = Call(method: "GET", bucket: bucket, key: nil, query: [("list-type", "2"), ("prefix", prefix)])
        if let delimiter { call.query.append(("delimiter", delimiter)) }
        if let maxKeys { call.query.append(("max-keys", String(max(1, maxKeys)))) }
        if let token { call.query.append(("continuation-token", token)) }
        let root = try await document(try await send(call), call: call)
        var objects: [S3ObjectSummary] = []
        for item in root.all("Contents") {
            guard let key = item["Key"], let size = item.integer("Size") else { continue }
            objects.append(S3ObjectSummary(key: key, size: size, etag: item["ETag"] ?? "",
                                           lastModified: item["LastModified"].flatMap(Self.parseISODate)))
        }
        let next = root["IsTruncated"] == "true" ? root["NextContinuationToken"] : nil
        // The same token again would page forever.
        if let next, next == token {
            throw S3Error.invalidResponse(resource: call.resource, reason: "ListObjectsV2 continuation token repeats")
        }
        return (objects, root.all("CommonPrefixes").compactMap { $0["Prefix"] }, next)
    }

    static func attach(sha256: [UInt8]?, to call: inout Call) {
        if let sha256 {
            call.payloadHash = sha256.hexString
            call.headers.set("x-amz-checksum-sha256", sha256.base64String)
        } else {
            call.payloadHash = S3Signer.unsignedPayload
        }
    }

    static func parseISODate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }
}

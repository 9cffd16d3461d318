import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftCore

/// A part of a multipart upload, as uploaded or as listed.
public struct S3Part: Sendable, Hashable {
    /// The part's number, 1...10,000.
    public var number: Int
    /// The ETag the service gave the part.
    public var etag: String
    /// The part's length in bytes.
    public var size: Int64
    /// Base64 SHA-256 the service recorded, when the upload asked for SHA-256 checksums.
    public var checksumSHA256: String?

    /// A part as uploaded or listed.
    public init(number: Int, etag: String, size: Int64, checksumSHA256: String? = nil) {
        self.number = number
        self.etag = etag
        self.size = size
        self.checksumSHA256 = checksumSHA256
    }

    /// A `<Part>` of a ListParts answer; nil unless its number is 1...10,000 and its size a non-negative
    /// integer, so a hostile listing cannot produce negative offsets or overflowing sums.
    init?(listed part: S3XMLElement) {
        guard let number = part.integer("PartNumber"), (1...S3PartSize.maximumParts).contains(number),
              let size = part.integer("Size") else { return nil }
        self.init(number: Int(number), etag: part["ETag"] ?? "", size: size, checksumSHA256: part["ChecksumSHA256"])
    }

    /// The sum of `parts`' sizes; nil when it does not fit in Int64.
    static func total(_ parts: [S3Part]) -> Int64? {
        var sum: Int64 = 0
        for p in parts {
            let (s, overflow) = sum.addingReportingOverflow(p.size)
            if overflow { return nil }
            sum = s
        }
        return sum
    }
}

extension S3Client {
    /// Starts a multipart upload that records a SHA-256 checksum per part; returns its UploadId. `metadata`
    /// becomes the object's `x-amz-meta-*` once completed.
    public func createMultipartUpload(bucket: String, key: String, contentType: String? = nil,
                                      metadata: [String: String] = [:]) async throws -> String {
        var call = Call(method: "POST", bucket: bucket, key: key, query: [("uploads", "")])
        call.headers.set("x-amz-checksum-algorithm", "SHA256")
        if let contentType { call.headers.set("Content-Type", contentType) }
        Self.attach(metadata: metadata, to: &call)
        let root = try await document(try await send(call), call: call)
        guard let id = root["UploadId"], !id.isEmpty else {
            throw S3Error.invalidResponse(resource: call.resource, reason: "CreateMultipartUpload answer has no UploadId")
        }
        return id
    }

    /// Sends part `number` (1-based); `sha256` is the part's digest, checked by the service. Returns its ETag.
    public func uploadPart(bucket: String, key: String, uploadId: String, number: Int, body: HTTPClientRequest.Body,
                           sha256: [UInt8]?) async throws -> String {
        var call = Call(method: "PUT", bucket: bucket, key: key,
                        query: [("partNumber", String(number)), ("uploadId", uploadId)], body: body)
        Self.attach(sha256: sha256, to: &call)
        let response = try await sendToUpload(call)
        _ = try? await response.collect(upTo: 64 * 1024)
        guard let etag = response.headers["ETag"] else {
            throw S3Error.invalidResponse(resource: call.resource, reason: "UploadPart answer has no ETag")
        }
        return etag
    }

    /// Parts the service holds for `uploadId`, following `NextPartNumberMarker` pages.
    public func listParts(bucket: String, key: String, uploadId: String) async throws -> [S3Part] {
        var parts: [S3Part] = []
        var marker: String?
        repeat {
            var call = Call(method: "GET", bucket: bucket, key: key, query: [("uploadId", uploadId)])
            if let marker { call.query.append(("part-number-marker", marker)) }
            let root = try await document(try await sendToUpload(call), call: call)
            parts += root.all("Part").compactMap(S3Part.init(listed:))
            let next = root["IsTruncated"] == "true" ? root["NextPartNumberMarker"] : nil
            // Part numbers only grow: a marker that does not would page forever.
            if let next, (Int64(digits: next.trimmingSpaces()) ?? 0) <= (marker.flatMap { Int64(digits: $0) } ?? 0) {
                throw S3Error.invalidResponse(resource: call.resource, reason: "ListParts marker \(next) does not advance")
            }
            marker = next
        } while marker != nil
        return parts
    }

    /// Joins `parts` (in part-number order) into the object; returns its ETag.
    @discardableResult
    public func completeMultipartUpload(bucket: String, key: String, uploadId: String, parts: [S3Part]) async throws -> String {
        let items = parts.sorted { $0.number < $1.number }.map { part in
            "<Part><PartNumber>\(part.number)</PartNumber><ETag>\(S3XMLElement.escape(part.etag))</ETag>"
                + (part.checksumSHA256.map { "<ChecksumSHA256>\($0)</ChecksumSHA256>" } ?? "") + "</Part>"
        }.joined()
        let xml = Array("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\(items)</CompleteMultipartUpload>".utf8)
        var call = Call(method: "POST", bucket: bucket, key: key, query: [("uploadId", uploadId)], body: .bytes(xml))
        call.payloadHash = Digest.hash(.sha256, xml).hexString
        call.headers.set("Content-Type", "application/xml")
        let root = try await document(try await sendToUpload(call), call: call)
        if let etag = root["ETag"], !etag.isEmpty { return etag }
        // Ceph RGW 16 answers an empty <ETag>; its HEAD has the real one.
        return try await headObject(bucket: bucket, key: key).etag ?? ""
    }

    /// Discards an unfinished multipart upload and the parts stored for it.
    public func abortMultipartUpload(bucket: String, key: String, uploadId: String) async throws {
        let response = try await sendToUpload(Call(method: "DELETE", bucket: bucket, key: key, query: [("uploadId", uploadId)],
                                                   accepted: [200, 204]))
        _ = try? await response.collect(upTo: 64 * 1024)
    }

    /// `send` for a call addressed to an upload id: a 404 `NoSuchKey` there means the upload is gone (Ceph RGW 16
    /// answers so for an aborted upload where AWS says `NoSuchUpload`), and is reported as `NoSuchUpload`.
    func sendToUpload(_ call: Call) async throws -> HTTPClientResponse {
        do {
            return try await send(call)
        } catch let S3Error.service(status, code, message, resource) where status == 404 && code == "NoSuchKey" {
            throw S3Error.service(status: status, code: "NoSuchUpload", message: message, resource: resource)
        }
    }
}

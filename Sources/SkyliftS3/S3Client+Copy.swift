import Foundation
import SkyliftHTTPClient
import SkyliftCore

extension S3Client {
    /// S3's limit for a single CopyObject; larger objects are copied part by part (UploadPartCopy).
    public static let singleCopyLimit: Int64 = 5 << 30

    /// Copies object `sourceKey` (of `size` bytes) to `key` inside `bucket`, on the service: no byte passes
    /// through this machine. Up to `singleCopyLimit` (lower it to test) one CopyObject, above it a multipart
    /// upload whose parts are `UploadPartCopy` ranges of `partSize` (at least 5 MiB, enough for 10,000 parts).
    /// Returns the new object's ETag.
    ///
    /// The copy keeps the source's metadata and content type, except for a copy made of parts, which has
    /// `contentType` (else the source's) and no metadata. With `metadata` given, the copy has exactly that
    /// metadata and `contentType` whichever way it is made. With `sourceIfMatch`, only while the source has that
    /// ETag (else status 412), so a source written again meanwhile is not copied.
    @discardableResult
    public func copyObject(bucket: String, from sourceKey: String, to key: String, size: Int64,
                           singleCopyLimit: Int64 = S3Client.singleCopyLimit, partSize: Int64 = 512 << 20,
                           metadata: [String: String]? = nil, contentType: String? = nil,
                           sourceIfMatch: String? = nil) async throws -> String {
        let source = "/" + S3Signer.encode(bucket, keepSlash: false) + "/" + S3Signer.encode(sourceKey, keepSlash: true)
        guard size > singleCopyLimit else {
            var call = Call(method: "PUT", bucket: bucket, key: key)
            call.headers.set("x-amz-copy-source", source)
            if let sourceIfMatch { call.headers.set("x-amz-copy-source-if-match", sourceIfMatch) }
            if let metadata {
                call.headers.set("x-amz-metadata-directive", "REPLACE")
                Self.attach(metadata: metadata, to: &call)
                if let contentType { call.headers.set("Content-Type", contentType) }
            }
            // A copy can fail after its 200 went out: the error then comes as the body.
            let root = try await document(try await send(call), call: call)
            return root["ETag"].map(Self.quoted) ?? ""
        }
        let info = try await headObject(bucket: bucket, key: sourceKey)
        let id = try await createMultipartUpload(bucket: bucket, key: key, contentType: contentType ?? info.contentType,
                                                 metadata: metadata ?? [:])
        do {
            let length = info.length ?? size
            let partLength = S3PartSize.forObject(length: length, minimum: partSize)
            var parts: [S3Part] = []
            var offset: Int64 = 0
            while offset < length {
                let range = ByteRange(offset: offset, length: min(partLength, length - offset))
                var call = Call(method: "PUT", bucket: bucket, key: key,
                                query: [("partNumber", String(parts.count + 1)), ("uploadId", id)])
                call.headers.set("x-amz-copy-source", source)
                call.headers.set("x-amz-copy-source-range", "bytes=\(range.offset)-\(range.last)")
                // Only while the source is the object measured above.
                if let etag = sourceIfMatch ?? info.etag { call.headers.set("x-amz-copy-source-if-match", etag) }
                let root = try await document(try await sendToUpload(call), call: call)
                guard let etag = root["ETag"], !etag.isEmpty else {
                    throw S3Error.invalidResponse(resource: call.resource, reason: "UploadPartCopy answer has no ETag")
                }
                parts.append(S3Part(number: parts.count + 1, etag: Self.quoted(etag), size: range.length,
                                    checksumSHA256: root["ChecksumSHA256"]))
                offset += range.length
            }
            return try await completeMultipartUpload(bucket: bucket, key: key, uploadId: id, parts: parts)
        } catch {
            try? await abortMultipartUpload(bucket: bucket, key: key, uploadId: id)
            throw error
        }
    }

    /// ETags in copy answers come with or without quotes (RGW leaves them out); headers carry them quoted.
    static func quoted(_ etag: String) -> String {
        etag.hasPrefix("\"") ? etag : "\"\(etag)\""
    }
}

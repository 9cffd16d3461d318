import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftCore

/// An `HTTPTransport` that signs every request for an S3 store, so code written against plain HTTP reads S3
/// objects: the proxy's `HTTPRangeOrigin`, `HTTPSource` (a copy source).
///
/// Requests may name objects as `s3://bucket/key` (sent to the client's endpoint in its addressing style)
/// or by the endpoint's own http(s) URLs. Paths and queries are re-encoded the way SigV4 signs them, so
/// what is sent is what is signed. Like any transport it neither retries nor turns statuses into errors.
/// Bodies from streams go unsigned (`UNSIGNED-PAYLOAD`); in-memory bodies are hashed.
public struct S3SigningTransport: HTTPTransport {
    /// The client whose configuration signs and addresses every request.
    public let client: S3Client

    /// A transport signing with `client`.
    public init(client: S3Client) { self.client = client }

    /// Signs `request` and sends it once through the client's transport.
    public func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        var call = try self.call(for: request.url, method: request.method)
        call.headers = Self.pinningRanges(request.headers)
        call.body = request.body
        switch request.body {
        case .none: call.payloadHash = S3Signer.emptyPayloadHash
        case let .bytes(bytes): call.payloadHash = Digest.hash(.sha256, bytes).hexString
        case .stream: call.payloadHash = S3Signer.unsignedPayload
        }
        return try await client.sendOnce(call)
    }

    /// `If-Range` on a strong ETag becomes `If-Match`: not every S3-compatible store honours `If-Range`, and one
    /// that ignores it would answer a changed object's range as if nothing changed; with `If-Match` it answers
    /// 412, which range readers treat as "the object changed". Date validators stay as they are.
    static func pinningRanges(_ headers: HTTPHeaders) -> HTTPHeaders {
        guard let validator = headers["If-Range"], validator.hasPrefix("\""), headers["Range"] != nil, headers["If-Match"] == nil else {
            return headers
        }
        var pinned = headers
        pinned.remove("If-Range")
        pinned.set("If-Match", validator)
        return pinned
    }

    /// Bucket, key and query of `url`: `s3://bucket/key`, or a URL on the client's endpoint.
    func call(for url: URL, method: String) throws -> S3Client.Call {
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw HTTPClientError.invalidRequest(url: url, reason: "not a valid URL")
        }
        let query = (parts.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        let path = parts.path // percent-decoded
        let bucket: String
        let key: String
        let endpoint = client.configuration.endpoint
        let endpointHost = endpoint.host?.lowercased() ?? ""
        let host = parts.host?.lowercased() ?? ""
        if parts.scheme?.lowercased() == "s3" {
            bucket = parts.host ?? ""
            key = String(path.drop { $0 == "/" })
        } else if host == endpointHost && parts.port == endpoint.port {
            let segments = path.drop { $0 == "/" }
            bucket = String(segments.prefix { $0 != "/" })
            key = String(segments.dropFirst(bucket.count + 1))
        } else if host.hasSuffix("." + endpointHost) && parts.port == endpoint.port {
            bucket = String(host.dropLast(endpointHost.count + 1))
            key = String(path.drop { $0 == "/" })
        } else {
            throw HTTPClientError.invalidRequest(url: Redaction.redactedURL(url),
                                                 reason: "not an s3:// URL or a URL on the S3 endpoint \(endpoint.absoluteString)")
        }
        guard !bucket.isEmpty else {
            throw HTTPClientError.invalidRequest(url: Redaction.redactedURL(url), reason: "URL names no bucket")
        }
        return S3Client.Call(method: method, bucket: bucket, key: key.isEmpty ? nil : key, query: query)
    }
}

import Foundation
import SkyliftHTTPClient
import SkyliftCore

/// Signed requests to an S3-compatible store: objects, ranged reads, listings and multipart uploads.
///
/// Every request is signed with SigV4 at send time and sent once: the client never retries. Errors are thrown
/// as `S3Error` (or `HTTPClientError` for a broken connection); the upload engine decides what to try again,
/// with one retry policy for every remote.
public final class S3Client: Sendable {
    /// Endpoint, region, credentials and addressing of the service.
    public let configuration: S3Configuration
    let transport: any HTTPTransport
    let clock: @Sendable () -> Date
    let signer: S3Signer
    /// Seconds without progress before a request fails (see `HTTPClientRequest.timeout`).
    let timeout: Double

    /// A client sending through `transport`; `timeout` is seconds without progress before a request fails, `clock`
    /// the signing time.
    public init(configuration: S3Configuration, transport: any HTTPTransport,
                timeout: Double = 60, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.transport = transport
        self.timeout = timeout
        self.clock = clock
        self.signer = S3Signer(credentials: configuration.credentials, region: configuration.region)
    }

    /// One S3 call before signing.
    struct Call {
        var method: String
        var bucket: String
        var key: String?
        var query: [(String, String)] = []
        var headers: HTTPHeaders = [:]
        var body: HTTPClientRequest.Body = .none
        /// Hex SHA-256 of the body, or `S3Signer.unsignedPayload`.
        var payloadHash = S3Signer.emptyPayloadHash
        /// Statuses that are answers rather than errors.
        var accepted: Set<Int> = [200]

        /// `s3://bucket/key` for messages.
        var resource: String { "s3://\(bucket)/\(key ?? "")" }
    }

    /// The URL, `Host` value and encoded path for `call`.
    func address(_ call: Call) -> (url: URL, host: String, path: String) {
        let endpoint = configuration.endpoint
        var host = endpoint.host ?? ""
        if host.contains(":") { host = "[\(host)]" }
        var basePath = endpoint.path
        while basePath.hasSuffix("/") { basePath.removeLast() }
        let encodedKey = call.key.map { "/" + S3Signer.encode($0, keepSlash: true) } ?? "/"
        var path: String
        if configuration.usesVirtualHost(for: call.bucket) {
            host = "\(call.bucket).\(host)"
            path = basePath + encodedKey
        } else {
            path = basePath + "/" + S3Signer.encode(call.bucket, keepSlash: false) + (call.key == nil ? "" : encodedKey)
        }
        if path.isEmpty { path = "/" }
        if let port = endpoint.port, !(endpoint.scheme == "http" && port == 80), !(endpoint.scheme == "https" && port == 443) {
            host += ":\(port)"
        }
        var text = "\(endpoint.scheme ?? "https")://\(host)\(path)"
        if !call.query.isEmpty {
            text += "?" + call.query.map { value in
                value.1.isEmpty && value.0 == "uploads" ? "uploads"
                    : "\(S3Signer.encode(value.0, keepSlash: false))=\(S3Signer.encode(value.1, keepSlash: false))"
            }.joined(separator: "&")
        }
        // Built only from encoded parts, so it always parses.
        return (URL(string: text)!, host, path)
    }

    /// Signs and sends `call` once; returns a response with an accepted status, else throws its `S3Error`.
    func send(_ call: Call) async throws -> HTTPClientResponse {
        let response = try await sendOnce(call)
        if call.accepted.contains(response.status) { return response }
        throw await Self.error(from: response, call: call)
    }

    /// Signs and sends `call` once; any status is returned as a response.
    func sendOnce(_ call: Call) async throws -> HTTPClientResponse {
        let (url, host, path) = address(call)
        var headers = call.headers
        signer.sign(method: call.method, host: host, encodedPath: path, query: call.query,
                    headers: &headers, payloadHash: call.payloadHash, date: clock())
        return try await transport.execute(HTTPClientRequest(method: call.method, url: url, headers: headers,
                                                             body: call.body, timeout: timeout))
    }

    /// The `S3Error` an unaccepted response stands for, from its error document when it has one.
    static func error(from response: HTTPClientResponse, call: Call) async -> S3Error {
        let bytes = (try? await response.collect(upTo: 64 * 1024)) ?? []
        let document = try? S3XMLElement.parse(bytes)
        let code = document?["Code"] ?? Self.codeForBareStatus(response.status)
        return .service(status: response.status, code: code, message: document?["Message"] ?? "", resource: call.resource)
    }

    /// HEAD answers and some proxies carry no error document.
    static func codeForBareStatus(_ status: Int) -> String {
        switch status {
        case 301: "PermanentRedirect"
        case 304: "NotModified"
        case 400: "BadRequest"
        case 403: "AccessDenied"
        case 404: "NotFound"
        case 412: "PreconditionFailed"
        case 416: "InvalidRange"
        case 503: "SlowDown"
        default: "HTTP\(status)"
        }
    }

    /// The small XML body of a successful answer; S3 may also put an `<Error>` document in a 200.
    func document(_ response: HTTPClientResponse, call: Call) async throws -> S3XMLElement {
        let bytes = try await response.collect(upTo: 16 << 20)
        let root: S3XMLElement
        do { root = try S3XMLElement.parse(bytes) } catch {
            throw S3Error.invalidResponse(resource: call.resource,
                                          reason: "XML answer from \(Redaction.url(address(call).url)) refused: \(error)")
        }
        if root.name == "Error" {
            throw S3Error.service(status: response.status, code: root["Code"] ?? "Error", message: root["Message"] ?? "",
                                  resource: call.resource)
        }
        return root
    }
}

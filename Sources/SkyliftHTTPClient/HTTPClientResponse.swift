import SkyliftCore

/// A response whose head has arrived; the body streams through `body`.
public struct HTTPClientResponse: Sendable {
    public let status: Int
    public let headers: HTTPHeaders
    /// The body as chunks of bytes. Dropping it (and every iterator made from it) aborts the transfer.
    public let body: HTTPResponseBody

    public init(status: Int, headers: HTTPHeaders, body: HTTPResponseBody) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension HTTPClientResponse {
    /// The whole body, for small bodies (XML listings, error documents).
    ///
    /// Throws `HTTPClientError.bodyTooLarge` as soon as more than `limit` bytes arrive, aborting the transfer.
    public func collect(upTo limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in body {
            guard bytes.count + chunk.count <= limit else {
                body.cancel()
                throw HTTPClientError.bodyTooLarge(url: body.url, limit: limit)
            }
            bytes.append(contentsOf: chunk)
        }
        return bytes
    }
}

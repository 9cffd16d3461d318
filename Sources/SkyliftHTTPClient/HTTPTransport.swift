import Foundation

/// Sends HTTP requests. Implementations never follow redirects, never decompress and never cache:
/// callers see exactly what the server sent.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns once the response head has arrived.
    ///
    /// Throws `HTTPClientError` when no response head arrives (connect failure, timeout, cut connection)
    /// and `HTTPClientError.cancelled` when the calling task is cancelled first. Any HTTP status is a response,
    /// not an error.
    func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse
}

/// The transport Skylift uses: libcurl (bounded buffers with real backpressure, `Content-Length` on streamed
/// bodies, CA files and pinned keys). `URLSessionTransport` lives in the `URLSessionHTTP` module, so that
/// FoundationNetworking is linked only where it is asked for.
public func makeDefaultTransport(tls: TLSTrust? = nil) -> any HTTPTransport {
    CurlTransport(configuration: .init(tls: tls))
}

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

/// The transport with the best throughput on this platform: libcurl on Linux, URLSession elsewhere.
/// With `tls` (a CA file or pinned key) libcurl wherever it exists, since only it takes those settings.
public func makeDefaultTransport(tls: TLSTrust? = nil) -> any HTTPTransport {
    #if canImport(CCurl) && os(Linux)
    CurlTransport(configuration: .init(tls: tls))
    #elseif canImport(CCurl)
    tls == nil ? URLSessionTransport() : CurlTransport(configuration: .init(tls: tls))
    #else
    URLSessionTransport()
    #endif
}

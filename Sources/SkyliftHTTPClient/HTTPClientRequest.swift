import Foundation
import SkyliftCore

/// One HTTP request for an `HTTPTransport`.
public struct HTTPClientRequest: Sendable {
    /// Where the request body comes from.
    public enum Body: Sendable {
        /// No body.
        case none
        /// A small body held in memory (XML, JSON).
        case bytes([UInt8])
        /// A body read from a stream as it is sent. `length` nil sends it chunked.
        ///
        /// `open` is called when the transport starts sending (`CurlTransport` calls it on the transfer's own
        /// thread), and again if the transport must start the body over (a reused connection turned out dead);
        /// each call returns a fresh stream positioned at the body's first byte. The transport opens, reads
        /// (blocking reads are fine) and closes the stream.
        case stream(length: Int64?, open: @Sendable () throws -> InputStream)

        /// Bytes the body will carry, when known up front.
        public var length: Int64? {
            switch self {
            case .none: 0
            case let .bytes(b): Int64(b.count)
            case let .stream(length, _): length
            }
        }
    }

    public var method: String
    public var url: URL
    public var headers: HTTPHeaders
    public var body: Body
    /// Seconds without any bytes moving (and the connect timeout) before the request fails with `timedOut`.
    public var timeout: Double

    public init(method: String = "GET", url: URL, headers: HTTPHeaders = [:], body: Body = .none, timeout: Double = 60) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

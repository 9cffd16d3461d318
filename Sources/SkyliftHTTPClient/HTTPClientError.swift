import Foundation

/// Why a request failed. Carries the URL as `Redaction.redactedURL` leaves it and never header values.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request could not be sent as given (unsupported scheme, malformed URL or header).
    case invalidRequest(url: URL, reason: String)
    /// No connection could be made (refused, unresolvable host, TLS handshake failed).
    case connectFailed(url: URL, reason: String)
    /// No bytes moved for the request's `timeout`, or connecting took longer.
    case timedOut(url: URL)
    /// The connection failed after it was made: cut mid-body, short body, protocol error.
    case transferFailed(url: URL, reason: String)
    /// The request body's stream failed or ended before its declared length.
    case bodyStreamFailed(url: URL, reason: String)
    /// `collect(upTo:)` saw more than `limit` bytes.
    case bodyTooLarge(url: URL, limit: Int)
    /// The caller cancelled the request or dropped the response body.
    case cancelled

    public var description: String {
        switch self {
        case let .invalidRequest(url, reason): "invalid request for \(url.absoluteString): \(reason)"
        case let .connectFailed(url, reason): "cannot connect to \(url.absoluteString): \(reason)"
        case let .timedOut(url): "timed out: \(url.absoluteString)"
        case let .transferFailed(url, reason): "transfer failed for \(url.absoluteString): \(reason)"
        case let .bodyStreamFailed(url, reason): "request body failed for \(url.absoluteString): \(reason)"
        case let .bodyTooLarge(url, limit): "response body of \(url.absoluteString) is larger than \(limit) bytes"
        case .cancelled: "request cancelled"
        }
    }
}

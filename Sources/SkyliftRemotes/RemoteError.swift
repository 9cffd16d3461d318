import Foundation
import SkyliftCore

/// Why a remote operation failed, with the URL it concerned.
///
/// Descriptions are one line, name the URL and the cause, and never carry header values (tokens).
public enum RemoteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with a status the operation cannot continue from.
    case status(Int, method: String, url: URL, detail: String?)
    /// The connection failed or was cut before a response completed.
    case network(url: URL, reason: String)
    /// The server's upload offset differs from ours (409, or a closed connection); ask it again.
    case offsetConflict(url: URL)
    /// The server rejected a part's checksum (tus 460, S3 BadDigest or XAmzContentSHA256Mismatch): bytes were
    /// damaged on the way; send that part again.
    case checksumMismatch(url: URL)
    /// The URL answers but speaks neither tus nor WebDAV.
    case unsupportedServer(url: URL)
    /// The destination is a file where a folder was expected.
    case notAFolder(url: URL)
    /// The server broke the protocol (missing Location, offset going backwards, ...).
    case protocolViolation(url: URL, reason: String)
    /// A resumable upload the server no longer knows (expired or removed).
    case uploadGone(url: URL)
    /// The remote cannot do this at all (a move on a tus endpoint without WebDAV beside it).
    case unsupported(url: URL, operation: String)

    /// How an upload engine should react to this error.
    public var disposition: RemoteErrorDisposition {
        switch self {
        case .network: .refetchOffset
        case .offsetConflict: .refetchOffset
        case .checksumMismatch: .resendPart
        case .uploadGone: .restart
        case let .status(code, _, _, _):
            switch code {
            case 409, 423: .refetchOffset
            case 460: .resendPart
            case 408, 425, 429: .retry
            case 507: .outOfSpace
            case 500...599: .retry
            default: .fatal
            }
        case .unsupportedServer, .notAFolder, .protocolViolation, .unsupported: .fatal
        }
    }

    /// The HTTP status, when the server sent one.
    public var status: Int? {
        if case let .status(code, _, _, _) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case let .status(code, method, url, detail):
            let cause: String
            switch code {
            case 401: cause = "authentication failed (401): check --token or SKYLIFT_TOKEN"
            case 403: cause = "permission denied (403)"
            case 404: cause = "not found (404)"
            case 405: cause = "method \(method) not allowed (405)"
            case 413: cause = "too large for the server (413)"
            case 415: cause = "unsupported media type (415)"
            case 507: cause = "server out of space (507)"
            default: cause = "\(method) failed with HTTP \(code)"
            }
            return "\(Redaction.url(url, query: .drop)): \(cause)" + (detail.map { ": \($0)" } ?? "")
        case let .network(url, reason): return "\(Redaction.url(url, query: .drop)): \(reason)"
        case let .offsetConflict(url): return "\(Redaction.url(url, query: .drop)): upload offset conflict"
        case let .checksumMismatch(url): return "\(Redaction.url(url, query: .drop)): server rejected the part checksum (bytes damaged on the way)"
        case let .unsupportedServer(url): return "\(Redaction.url(url, query: .drop)): speaks neither tus nor WebDAV"
        case let .notAFolder(url): return "\(Redaction.url(url, query: .drop)): is a file, not a folder"
        case let .protocolViolation(url, reason): return "\(Redaction.url(url, query: .drop)): protocol error: \(reason)"
        case let .uploadGone(url): return "\(Redaction.url(url, query: .drop)): upload no longer exists on the server"
        case let .unsupported(url, operation): return "\(Redaction.url(url, query: .drop)): cannot \(operation) here"
        }
    }
}

/// What to do after a failed remote call.
public enum RemoteErrorDisposition: Sendable, Equatable {
    /// Try the same call again after a backoff.
    case retry
    /// Ask the server for its offset, then continue from there (after a backoff).
    case refetchOffset
    /// Send the same part again.
    case resendPart
    /// The upload is gone on the server: create a new one.
    case restart
    /// The server is out of space (507): sending again cannot help until space is freed. Ask the server what it
    /// kept, then wait for space (minutes, growing) or report how much is kept; never re-send what it holds.
    case outOfSpace
    /// Give up and report.
    case fatal
}

import Foundation
import SkyliftRemotes
import SkyliftCore
import SkyliftSystem

/// Why a download failed, naming the remote URL or local path and the cause (HTTP status, errno).
/// Descriptions are one line and never carry header values.
public enum DownloadError: Error, Sendable, CustomStringConvertible {
    /// The source could not be listed or read (`RemoteError` carries URL and status).
    case remote(RemoteError)
    /// A local file operation failed (no space left, permission denied …) on `path`.
    case local(FileError)
    /// The remote listed the file but refuses to serve it.
    case notServed(url: URL, status: Int)
    /// The bytes read hash to something else than the remote's digest, also when read a second time.
    case digestMismatch(url: URL, algorithm: String, expected: String, actual: String)
    /// `--verify` was asked and the remote serves no digest for this file.
    case noDigest(url: URL)
    /// The remote sent a different number of bytes than it announced.
    case lengthMismatch(url: URL, expected: Int64, actual: Int64)
    /// A remote name that would land outside the destination folder (`..`, absolute, NUL).
    case unsafeName(url: URL, name: String)
    /// The local name is taken by something that is not a regular file (a folder, a link).
    case inTheWay(path: String, what: String)
    /// The remote file changed under every read of it, several times over.
    case keepsChanging(url: URL)
    /// A source's service failed in another way (S3 configuration and credentials), its message as given.
    case source(String)
    case cancelled(path: String)

    public var description: String {
        switch self {
        case let .remote(error): return error.description
        case let .local(error):
            if error.isNoSpace { return "\(error.path): no space left on the destination (\(error.errno?.description ?? "ENOSPC"))" }
            return error.description
        case let .notServed(url, status):
            return "\(Self.show(url)): listed, but the server will not serve it (HTTP \(status))"
        case let .digestMismatch(url, algorithm, expected, actual):
            return "\(Self.show(url)): \(algorithm) mismatch after fetching twice (served \(expected), read \(actual))"
        case let .noDigest(url): return "\(Self.show(url)): the remote serves no digest to verify against (--verify)"
        case let .lengthMismatch(url, expected, actual):
            return "\(Self.show(url)): the remote announced \(expected) bytes but sent \(actual)"
        case let .unsafeName(url, name): return "\(Self.show(url)): refusing the remote name \(name.debugDescription) (it leaves the destination)"
        case let .inTheWay(path, what): return "\(path): \(what) is in the way of the downloaded file"
        case let .keepsChanging(url): return "\(Self.show(url)): keeps changing while being read"
        case let .source(reason): return reason
        case let .cancelled(path): return "\(path): cancelled"
        }
    }

    static func show(_ url: URL) -> String { Redaction.url(url, query: .drop) }

    /// Whether another attempt at the same request may succeed (network cuts, 5xx, throttling).
    var isTransient: Bool {
        guard case let .remote(error) = self else { return false }
        return error.disposition != .fatal
    }
}

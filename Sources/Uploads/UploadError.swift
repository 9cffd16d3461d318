import Foundation
import Remotes
import SkyliftCore

/// Why an upload did not complete. Each description is one line naming the file or URL and the cause.
public enum UploadError: Error, Sendable, CustomStringConvertible {
    /// The source file does not exist.
    case sourceMissing(path: String)
    /// A directory was given where a file was expected.
    case sourceIsDirectory(path: String)
    /// The source could not be read.
    case sourceUnreadable(path: String, reason: String)
    /// The source changed while it was being uploaded; the partial upload was removed.
    case sourceChanged(path: String)
    /// The remote failed in a way retrying cannot fix.
    case remote(source: String, RemoteError)
    /// Transient failures went on past the retry limit.
    case retriesExhausted(source: String, attempts: Int, last: RemoteError)
    /// The server holds a different size than was sent.
    case sizeMismatch(source: String, url: String, expected: Int64, found: Int64?)
    /// `--verify` read the object back and its SHA-256 differs.
    case verifyFailed(source: String, url: String)
    /// `--verify` was asked for but the remote can neither be read nor offers a digest.
    case cannotVerify(source: String, url: String)
    /// The resume state directory cannot be written.
    case stateNotWritable(path: String, reason: String)
    /// The upload was cancelled; its resume state is kept.
    case cancelled(source: String)

    public var description: String {
        switch self {
        case let .sourceMissing(p): "\(p): no such file"
        case let .sourceIsDirectory(p): "\(p): is a directory, not a file"
        case let .sourceUnreadable(p, reason): "\(p): cannot read: \(reason)"
        case let .sourceChanged(p): "\(p): source modified during upload; the partial upload was discarded"
        case let .remote(s, e): "\(s): \(e.description)"
        case let .retriesExhausted(s, n, last): "\(s): gave up after \(n) attempts: \(last.description)"
        case let .sizeMismatch(s, url, expected, found):
            "\(s): server holds \(found.map(String.init) ?? "no") bytes at \(Redaction.url(url)), expected \(expected)"
        case let .verifyFailed(s, url): "\(s): SHA-256 of \(Redaction.url(url)) differs from the source"
        case let .cannotVerify(s, url): "\(s): cannot verify \(Redaction.url(url)): the server neither serves it back nor offers a digest"
        case let .stateNotWritable(p, reason): "\(p): cannot write resume state: \(reason)"
        case let .cancelled(s): "\(s): cancelled"
        }
    }
}

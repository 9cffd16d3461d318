import Foundation
import SkyliftRemotes
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
    /// The source changed while it was being uploaded and the partial upload could not be removed: the server
    /// still holds `kept` bytes of it (nil: unknown) until it expires, or until `--cancel` removes it.
    case sourceChangedUploadKept(path: String, kept: Int64?, reason: String)
    /// The server is out of space (HTTP 507). It keeps `kept` bytes of `total` (nil: unknown) when the upload is
    /// resumable; `waited` is how long this run waited for space (`--wait-for-space`) before giving up.
    case outOfSpace(source: String, kept: Int64?, total: Int64, resumable: Bool, waited: Double)
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
        case let .sourceChangedUploadKept(p, kept, reason):
            "\(p): source modified during upload; the partial upload could not be removed (\(reason)): "
                + "\(kept.map { ByteCount.format($0) } ?? "an unknown amount") left on the server; add --cancel to the same command to remove it"
        case let .outOfSpace(s, kept, total, resumable, waited): Self.outOfSpace(s, kept: kept, total: total, resumable: resumable, waited: waited)
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

    /// What is kept and what to do: run again once space is freed (continuing from what is kept), or discard it.
    private static func outOfSpace(_ source: String, kept: Int64?, total: Int64, resumable: Bool, waited: Double) -> String {
        let after = waited > 0 ? " after waiting \(Self.duration(waited))" : ""
        guard resumable else {
            return "\(source): server out of space\(after): nothing of \(ByteCount.format(total)) kept on the server; free space and run the same command again"
        }
        let what = kept.map { "\(ByteCount.format($0)) of \(ByteCount.format(total))" } ?? "part of \(ByteCount.format(total))"
        return "\(source): server out of space\(after): \(what) kept on the server; "
            + "free space and run the same command again to continue, or add --cancel to discard it"
    }

    /// `45 s`, `3 min`, `1 h 5 min`.
    public static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min" + (s % 60 == 0 ? "" : " \(s % 60) s") }
        return "\(s / 3600) h" + (s % 3600 / 60 == 0 ? "" : " \(s % 3600 / 60) min")
    }
}

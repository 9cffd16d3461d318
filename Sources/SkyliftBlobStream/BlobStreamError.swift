import Foundation
import SkyliftSystem

/// Why a source or stream could not deliver its bytes. Every case names the path or URL involved.
public enum BlobStreamError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No file at the path.
    case notFound(path: String)
    /// The file exists but may not be opened for reading.
    case permissionDenied(path: String)
    /// The path names a directory.
    case isDirectory(path: String)
    /// The path names something other than a regular file (a FIFO, a device).
    case notRegularFile(path: String)
    /// A system call failed.
    case io(path: String, operation: String, errno: Errno)
    /// The content changed while it was being read, or differs from what was expected when re-opened.
    case contentChanged(name: String)
    /// The source ended before the length it announced.
    case truncated(name: String, expected: Int64, actual: Int64)
    /// Thrown by a source whose open state went stale; streams re-open the source when they see it.
    case invalidated(name: String)
    /// The source kept invalidating itself without letting a block be read.
    case reopenLimitReached(name: String, attempts: Int)
    /// A synchronous open waited for a completion that could only run on the waiting thread.
    case synchronousOpenWouldDeadlock(name: String)
    /// The requested start offset lies past the end.
    case offsetOutOfRange(name: String, offset: Int64, length: Int64)
    /// The stream was used after `close()` or before `open()`.
    case notOpen(name: String)
    /// The server answered a Range request with the whole object (status 200).
    case rangeNotSupported(url: String)
    /// The object's entity tag changed after the stream pinned it.
    case entityTagChanged(url: String)
    /// The server answered with an unexpected status.
    case httpStatus(url: String, status: Int)
    /// The response lacked what the source needs (length, Content-Range).
    case badResponse(url: String, reason: String)
    /// The connection failed, and reconnecting did not help.
    case transport(url: String, reason: String)

    public var description: String {
        switch self {
        case let .notFound(path): "no such file: \(path)"
        case let .permissionDenied(path): "permission denied reading \(path)"
        case let .isDirectory(path): "is a directory, not a file: \(path)"
        case let .notRegularFile(path): "not a regular file: \(path)"
        case let .io(path, operation, code): "\(operation) failed for \(path): \(code) (errno \(code.rawValue))"
        case let .contentChanged(name): "content changed while being read: \(name)"
        case let .truncated(name, expected, actual): "\(name) ended at byte \(actual), expected \(expected) bytes"
        case let .invalidated(name): "source became invalid: \(name)"
        case let .reopenLimitReached(name, attempts): "gave up re-opening \(name) after \(attempts) attempts"
        case let .synchronousOpenWouldDeadlock(name):
            "synchronous open of \(name) on the queue its open completes on would deadlock; open it from another thread or use asynchronous mode"
        case let .offsetOutOfRange(name, offset, length): "offset \(offset) is past the end of \(name) (\(length) bytes)"
        case let .notOpen(name): "stream over \(name) is not open"
        case let .rangeNotSupported(url): "server ignored the Range request (answered 200) for \(url)"
        case let .entityTagChanged(url): "object changed on the server (entity tag differs) while reading \(url)"
        case let .httpStatus(url, status): "HTTP \(status) from \(url)"
        case let .badResponse(url, reason): "unusable response from \(url): \(reason)"
        case let .transport(url, reason): "connection to \(url) failed: \(reason)"
        }
    }
}

extension BlobStreamError: LocalizedError {
    public var errorDescription: String? { description }
}

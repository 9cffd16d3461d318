import Foundation
import SkyliftCore
import SkyliftHTTPClient
import SkyliftS3

/// Why an ``S3Store`` operation failed: which operation, on which store path, and the HTTP status when the
/// service answered. Never carries credentials, signatures or header values.
public struct S3StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// Nothing is stored at the path.
        case notFound
        /// The path is not one the store takes (empty component, `.`/`..`, inside the store's own `.skylift/`).
        case invalidPath
        /// A file stands where a folder was asked for, or the other way round.
        case conflict
        /// The bytes written do not have the SHA-256 the writer expected; nothing was stored.
        case digestMismatch(expected: String, actual: String)
        /// An append to a resumable write started elsewhere than where the write stands (`current` bytes).
        case wrongOffset(current: Int64)
        /// A resumable write would be longer, or was finished shorter, than the length it was begun with.
        case lengthMismatch(expected: Int64, actual: Int64)
        /// What was to be stored (`size` bytes) is more than the store keeps there (`limit`).
        case tooLarge(Int, limit: Int)
        /// A resumable write is not what the operation needs (a finished partial write, one not finished).
        case unfinished(String)
        /// The service refused with this S3 error code and message.
        case service(code: String, message: String)
        /// The connection failed or timed out.
        case transport(String)
        /// The service answered something the store cannot use, or the store's own state object is damaged.
        case invalidResponse(String)
    }

    /// The store operation: `stat`, `list`, `read`, `write`, `makeFolder`, `delete`, `copy`, `move`, `state`, `recover`.
    public var operation: String
    /// The store path (relative to the store's prefix) the operation was about.
    public var path: String
    /// The service's HTTP status, when it answered.
    public var status: Int?
    /// What went wrong.
    public var reason: Reason

    /// An error of `operation` on `path`.
    public init(operation: String, path: String, status: Int? = nil, reason: Reason) {
        self.operation = operation
        self.path = path
        self.status = status
        self.reason = reason
    }

    /// One line naming the operation, the path, the status and the reason.
    public var description: String {
        let at = status.map { " (HTTP \($0))" } ?? ""
        let why: String
        switch reason {
        case .notFound: why = "not found"
        case .invalidPath: why = "not a valid store path"
        case .conflict: why = "a file and a folder are in each other's way"
        case let .digestMismatch(expected, actual): why = "SHA-256 is \(actual), expected \(expected); nothing stored"
        case let .wrongOffset(current): why = "the write stands at byte \(current)"
        case let .lengthMismatch(expected, actual): why = "\(actual) bytes, but the write was begun for \(expected)"
        case let .tooLarge(size, limit): why = "\(size) bytes, more than the \(limit) kept"
        case let .unfinished(text): why = text
        case let .service(code, message): why = "S3 \(code)" + (message.isEmpty ? "" : ": \(message)")
        case let .transport(text): why = text
        case let .invalidResponse(text): why = "unusable answer: \(text)"
        }
        return "S3 store \(operation) \(path.debugDescription)\(at): \(why)"
    }

    /// The store error for a failure of the S3 client (or of the network below it) in `operation` on `path`;
    /// cancellation passes through as it is.
    static func wrapping(_ error: any Error, operation: String, path: String) -> any Error {
        switch error {
        case is S3StoreError, is CancellationError:
            return error
        case let error as S3Error:
            switch error {
            case let .service(status, code, message, _):
                if status == 404 && code != "NoSuchBucket" {
                    return S3StoreError(operation: operation, path: path, status: 404, reason: .notFound)
                }
                return S3StoreError(operation: operation, path: path, status: status, reason: .service(code: code, message: message))
            case let .invalidResponse(_, reason):
                return S3StoreError(operation: operation, path: path, reason: .invalidResponse(reason))
            case let .configuration(text), let .state(_, text):
                return S3StoreError(operation: operation, path: path, reason: .invalidResponse(text))
            }
        case HTTPClientError.cancelled:
            return CancellationError()
        case let error as HTTPClientError:
            return S3StoreError(operation: operation, path: path, reason: .transport(error.description))
        default:
            return S3StoreError(operation: operation, path: path, reason: .transport(String(describing: error)))
        }
    }
}

/// A file or folder of an ``S3Store``.
public struct S3StoreEntry: Sendable, Hashable {
    /// Whether the entry is an object or a key prefix.
    public enum Kind: Sendable, Hashable {
        /// An object.
        case file
        /// A key prefix: a folder marker object `<path>/`, or keys under it.
        case folder
    }

    /// The path relative to the store's prefix, without a trailing `/`; empty for the root.
    public var path: String
    /// File or folder.
    public var kind: Kind
    /// Length, content type, ETag and modification time as far as known (a folder has none; a listed file has
    /// no content type).
    public var info: ContentInfo
    /// The SHA-256 recorded when the file was written through the store (HEAD only, not in listings).
    public var sha256: [UInt8]?

    /// An entry as given.
    public init(path: String, kind: Kind, info: ContentInfo = ContentInfo(), sha256: [UInt8]? = nil) {
        self.path = path
        self.kind = kind
        self.info = info
        self.sha256 = sha256
    }
}

/// The answer to a conditional write of an ``S3Store`` state object.
public enum S3StoreConditionalWrite: Sendable, Hashable {
    /// Stored; the object now has this ETag.
    case stored(etag: String)
    /// The condition did not hold (an object was there, or it had another ETag): nothing was written.
    case preconditionFailed
}

/// The answer to ``S3Store/makeFolder(_:)``.
public enum S3StoreFolderCreation: Sendable, Hashable {
    /// This call made the folder.
    case created
    /// The folder was there already (made by another call or another instance).
    case alreadyExists
}

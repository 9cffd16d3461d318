#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX error number, typed: callers compare against named values, never raw integers.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` right now; read it before any other call can change it.
    public static var current: Errno { Errno(rawValue: errno) }

    public static let noSuchFile = Errno(rawValue: ENOENT)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    public static let interrupted = Errno(rawValue: EINTR)
    public static let fileExists = Errno(rawValue: EEXIST)
    public static let ioError = Errno(rawValue: EIO)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let quotaExceeded = Errno(rawValue: EDQUOT)
    public static let fileTooLarge = Errno(rawValue: EFBIG)
    public static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
    public static let tryAgain = Errno(rawValue: EAGAIN)
    public static let tooManyLinks = Errno(rawValue: ELOOP)
    public static let notEmpty = Errno(rawValue: ENOTEMPTY)

    /// The disk or the user's quota is full (or the file hit its size limit).
    public var isNoSpace: Bool { self == .noSpace || self == .quotaExceeded || self == .fileTooLarge }

    /// A non-blocking call found the resource busy (`EWOULDBLOCK`, which may equal `EAGAIN`).
    public var isWouldBlock: Bool { self == .wouldBlock || self == .tryAgain }

    /// The system's text for this error, e.g. "No such file or directory".
    public var description: String { String(cString: strerror(rawValue)) }
}

/// A failed file-system call: which call, on which path, and the errno (or, for a refusal that is not a
/// system error, a reason).
public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var call: String?
    public var path: String
    public var errno: Errno?
    public var reason: String?

    public init(call: String, path: String, errno: Errno) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// The failure of `call` on `path` with the thread's current errno.
    static func last(_ call: String, _ path: String) -> FileError { FileError(call: call, path: path, errno: .current) }

    public var isNoSpace: Bool { errno?.isNoSpace ?? false }

    public var description: String {
        if let reason { return "\(path): \(reason)" }
        return "\(path): \(call ?? "access") failed: \(errno?.description ?? "unknown error")"
    }
}

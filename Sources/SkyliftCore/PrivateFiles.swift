import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files only their owner may read: secrets (tokens) and state (resume records, queues, caches).
///
/// Everything is created with its final mode — files 0600 with `O_CREAT|O_EXCL`, folders 0700 — so there
/// is no moment when another user could open it, whatever the umask. Replacing goes through a temp file
/// made the same way, then `rename`, so readers see the old or the new content, never a torn one.
public enum PrivateFiles {
    public static let fileMode: mode_t = 0o600
    public static let folderMode: mode_t = 0o700

    /// Creates `path` and any missing parents; every folder created gets mode 0700 (existing ones are left
    /// as they are: they may be shared on purpose).
    public static func createDirectory(_ path: String) throws(PrivateFileError) {
        var missing: [String] = []
        var current = path
        while !current.isEmpty && current != "/" && !isDirectory(current) {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for folder in missing.reversed() {
            if mkdir(folder, folderMode) != 0 && errno != EEXIST {
                throw PrivateFileError(call: "mkdir", path: folder, errno: errno)
            }
        }
    }

    /// Creates a new, empty file with mode 0600; an existing file is left alone. For files another library
    /// opens afterwards (SQLite copies the database's mode to its -wal and -shm files).
    public static func createEmpty(_ path: String) throws(PrivateFileError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if fd < 0 {
            if errno == EEXIST { return }
            throw PrivateFileError(call: "open", path: path, errno: errno)
        }
        _ = close(fd)
    }

    /// Replaces `path` with `bytes` atomically and durably (temp file 0600, fsync, rename, fsync of the folder).
    public static func replace(_ path: String, with bytes: [UInt8]) throws(PrivateFileError) {
        let temp = try writeTemp(for: path, bytes)
        guard rename(temp, path) == 0 else {
            let code = errno
            unlink(temp)
            throw PrivateFileError(call: "rename", path: path, errno: code)
        }
        syncFolder(of: path)
    }

    /// Creates `path` holding `bytes` unless it exists; returns false (and changes nothing) when it does.
    /// The file appears complete or not at all: a concurrent reader never sees it empty.
    public static func createNew(_ path: String, with bytes: [UInt8]) throws(PrivateFileError) -> Bool {
        let temp = try writeTemp(for: path, bytes)
        defer { unlink(temp) }
        guard link(temp, path) == 0 else {
            if errno == EEXIST { return false }
            throw PrivateFileError(call: "link", path: path, errno: errno)
        }
        syncFolder(of: path)
        return true
    }

    /// The contents of a secret file (`--token-file`, `--header-file`), at most `limit` bytes. Refuses a file
    /// that its group or other users may read or write, the way ssh refuses such a private key: the secret
    /// in it is no longer one.
    public static func readSecret(_ path: String, limit: Int = 64 << 10) throws(PrivateFileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PrivateFileError(call: "open", path: path, errno: errno) }
        defer { _ = close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw PrivateFileError(call: "fstat", path: path, errno: errno) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw PrivateFileError(path: path, reason: "not a regular file") }
        let mode = st.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw PrivateFileError(path: path, reason: "other users can access it (mode \(String(mode, radix: 8))); run 'chmod 600 \(path)'")
        }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw PrivateFileError(call: "read", path: path, errno: errno) }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { throw PrivateFileError(path: path, reason: "larger than \(limit) bytes") }
        return Array(bytes[0 ..< count])
    }

    /// Writes `bytes` to a new 0600 file next to `path` and flushes it; returns its path.
    private static func writeTemp(for path: String, _ bytes: [UInt8]) throws(PrivateFileError) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        try createDirectory(folder.isEmpty ? "." : folder)
        let name = (path as NSString).lastPathComponent
        let temp = (folder.isEmpty ? "" : folder + "/") + ".\(name).\(UInt64.random(in: 0 ... .max)).tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard fd >= 0 else { throw PrivateFileError(call: "open", path: temp, errno: errno) }
        var done = 0
        var failure: PrivateFileError?
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { failure = PrivateFileError(call: "write", path: temp, errno: n < 0 ? errno : EIO); break }
            done += n
        }
        if failure == nil && fsync(fd) != 0 { failure = PrivateFileError(call: "fsync", path: temp, errno: errno) }
        _ = close(fd)
        if let failure {
            unlink(temp)
            throw failure
        }
        return temp
    }

    private static func syncFolder(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = close(fd)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }
}

/// Why a private file could not be created, replaced or read: the call, the path, and errno or a reason.
public struct PrivateFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var call: String?
    public var path: String
    public var errno: Int32
    public var reason: String?

    public init(call: String, path: String, errno: Int32) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    public init(path: String, reason: String) {
        self.path = path
        self.errno = 0
        self.reason = reason
    }

    public var description: String {
        if let reason { return "\(path): \(reason)" }
        return "\(path): \(call ?? "access") failed: \(String(cString: strerror(errno)))"
    }
}

import Foundation
import Hashing
import SkyliftCore

/// Why the web app's state folder or one of its files could not be used.
public struct WebStateError: Error, CustomStringConvertible {
    /// What was being done (`create`, `read`, `write`, `rename`).
    public let operation: String
    public let path: String
    public let errno: Int32

    public var description: String { "cannot \(operation) \(path): \(String(cString: strerror(errno)))" }
}

/// The web app's private folder inside the store (`.skylift-webapp`, a name requests can never reach): the
/// server secret that signs session cookies and share links, the session list and the share registry.
/// Everything in it is created 0600 (the folder 0700) and replaced atomically.
public struct WebState: Sendable {
    /// Name of the folder inside the store root; the `.skylift-` prefix hides it from every request.
    public static let folderName = ".skylift-webapp"

    public let directory: String

    /// Opens (creating if needed) the state folder of the store at `root`.
    public init(root: String) throws {
        directory = (root.hasSuffix("/") ? String(root.dropLast()) : root) + "/" + Self.folderName
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw WebStateError(operation: "create", path: directory, errno: errno)
        }
    }

    /// The 32-byte server secret, made once from the system's random source and kept in `secret` (0600).
    /// Deleting the file revokes every session and share link.
    public func secret() throws -> [UInt8] {
        let path = directory + "/secret"
        if let text = try read("secret"), let bytes = Hex.bytes(text.trimmingCharacters(in: .whitespacesAndNewlines)),
           bytes.count == 32 {
            return bytes
        }
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = generator.next() }
        // O_EXCL: when two processes start at once, the second one reads the first one's secret.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST, let text = try read("secret"),
               let existing = Hex.bytes(text.trimmingCharacters(in: .whitespacesAndNewlines)), existing.count == 32 {
                return existing
            }
            throw WebStateError(operation: "create", path: path, errno: errno)
        }
        defer { close(fd) }
        let text = Array((bytes.hexString + "\n").utf8)
        guard write(fd, text, text.count) == text.count, fsync(fd) == 0 else {
            throw WebStateError(operation: "write", path: path, errno: errno)
        }
        return bytes
    }

    /// The contents of the state file `name`; nil when it does not exist.
    public func read(_ name: String) throws -> String? {
        let path = directory + "/" + name
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw WebStateError(operation: "read", path: path, errno: errno)
        }
        defer { close(fd) }
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = Foundation.read(fd, &buffer, buffer.count)
            if n < 0 { throw WebStateError(operation: "read", path: path, errno: errno) }
            if n == 0 { break }
            data += buffer[0..<n]
            // State files are small; a huge one is not ours to load.
            if data.count > 16 << 20 { throw WebStateError(operation: "read", path: path, errno: EFBIG) }
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Replaces the state file `name` with `text`: written to a temp file (0600), synced, renamed over it.
    public func replace(_ name: String, with text: String) throws {
        let path = directory + "/" + name
        let temp = path + ".tmp-" + UUID().uuidString
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw WebStateError(operation: "create", path: temp, errno: errno) }
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let code = errno
                close(fd)
                unlink(temp)
                throw WebStateError(operation: "write", path: temp, errno: code)
            }
            done += n
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced, rename(temp, path) == 0 else {
            let code = errno
            unlink(temp)
            throw WebStateError(operation: "rename", path: path, errno: code)
        }
    }
}

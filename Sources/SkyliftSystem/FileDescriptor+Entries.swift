#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Entries of an open folder, named relative to it: what a server confined to one tree does instead of handing
// path strings to the kernel, so a rename or a link elsewhere cannot redirect a call.
extension FileDescriptor {
    /// Opens the folder `name` in this folder, refusing a link there (`O_NOFOLLOW`).
    public func openFolder(_ name: String, path: String? = nil) throws(FileError) -> FileDescriptor {
        try FileDescriptor.open(name, .readOnly, options: [.directory, .noFollow], in: self, label: path ?? name)
    }

    /// Opens the regular file `name` in this folder for reading. Never follows a link and never waits on a FIFO
    /// (`O_NONBLOCK`); anything that turns out not to be a regular file is closed and refused with `ENOENT`,
    /// like a missing one.
    public func openRegularFile(_ name: String, path: String? = nil) throws(FileError) -> FileDescriptor {
        try openRegularFileWithStatus(name, path: path).fd
    }

    /// ``openRegularFile(_:path:)`` with the status it checked, for a caller that needs it (one `fstat`, not two).
    public func openRegularFileWithStatus(_ name: String, path: String? = nil) throws(FileError) -> (fd: FileDescriptor, status: FileStatus) {
        let fd = try FileDescriptor.open(name, .readOnly, options: [.noFollow, .nonBlocking], in: self, label: path ?? name)
        guard let status = try? fd.status(path: name), status.isRegular else {
            fd.close()
            throw FileError(call: "open", path: path ?? name, errno: .noSuchFile)
        }
        return (fd, status)
    }

    /// The entry `name` in this folder, a link described rather than followed unless `followLinks`.
    public func status(of name: String, followLinks: Bool = false) throws(FileError) -> FileStatus {
        try FileStatus(name, in: self, followLinks: followLinks)
    }

    /// Creates the folder `name` in this folder.
    public func makeFolder(_ name: String, permissions: mode_t = 0o755, path: String? = nil) throws(FileError) {
        guard mkdirat(rawValue, name, permissions) == 0 else { throw FileError.last("mkdir", path ?? name) }
    }

    /// Removes the entry `name` (a file or a link; an empty folder with `folder`).
    public func removeEntry(_ name: String, folder: Bool = false, path: String? = nil) throws(FileError) {
        guard unlinkat(rawValue, name, folder ? AT_REMOVEDIR : 0) == 0 else {
            throw FileError.last(folder ? "rmdir" : "unlink", path ?? name)
        }
    }

    /// Another descriptor for the same open file (its own close; shared offset).
    public func duplicate(path: String) throws(FileError) -> FileDescriptor {
        let fd = fcntl(rawValue, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw FileError.last("dup", path) }
        return FileDescriptor(rawValue: fd)
    }

    /// The canonical absolute path of `path`, links and `..` resolved; nil when it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

extension Errno {
    public static let badDescriptor = Errno(rawValue: EBADF)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let notSupported = Errno(rawValue: ENOTSUP)
    public static let argumentListTooLong = Errno(rawValue: E2BIG)
    public static let resultTooLarge = Errno(rawValue: ERANGE)
}

extension FileDescriptor {
    /// Sets the file's permission bits (`fchmod`).
    public func setPermissions(_ mode: mode_t, path: String) throws(FileError) {
        guard fchmod(rawValue, mode) == 0 else { throw FileError.last("fchmod", path) }
    }

    /// The permission bits a file created now with `requested` gets: `requested` less this process's umask.
    /// Read without changing it (Linux `/proc/self/status`); 022, the usual umask, where it cannot be read.
    public static func permissionsUnderUmask(_ requested: mode_t) -> mode_t {
        requested & ~(processUmask() ?? 0o022)
    }

    private static func processUmask() -> mode_t? {
        guard let fd = try? FileDescriptor.open("/proc/self/status", .readOnly) else { return nil }
        defer { fd.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 64 << 10 {
            let n = (try? chunk.withUnsafeMutableBytes { try fd.read(into: $0, path: "/proc/self/status") }) ?? 0
            if n <= 0 { break }
            bytes += chunk[0 ..< n]
        }
        for line in bytes.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("Umask:".utf8)) {
            let digits = line.dropFirst(6).filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }
            guard !digits.isEmpty, digits.count <= 6 else { return nil }
            return digits.reduce(mode_t(0)) { $0 * 8 + mode_t($1 - UInt8(ascii: "0")) }
        }
        return nil
    }
}

import Foundation

/// A failed file-system call: which call, on which path, and errno.
struct FileSystemError: Error, CustomStringConvertible {
    let operation: String
    let path: String
    let errno: Int32

    var isNoSpace: Bool { errno == ENOSPC || errno == EDQUOT }
    var description: String { "\(operation) \(path): \(String(cString: strerror(errno)))" }
}

/// Thin POSIX wrappers that throw typed errors; shared by every request kind.
enum FileSystem {
    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    static func stat(_ path: String) -> FileStat? { FileStat(path: path) }

    static func stat(fd: Int32) -> FileStat? { FileStat(fd: fd) }

    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws -> Int32 {
        let fd = Foundation.open(path, flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: path, errno: errno) }
        return fd
    }

    /// Writes all of `bytes`, retrying short writes and EINTR.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var done = 0
        while done < bytes.count {
            let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(operation: "write", path: path, errno: errno)
            }
            done += n
        }
    }

    static func sync(_ fd: Int32, path: String) throws {
        guard fsync(fd) == 0 else { throw FileSystemError(operation: "fsync", path: path, errno: errno) }
    }

    /// Makes a rename or creation inside `directory` durable.
    static func syncDirectory(_ directory: String) {
        let fd = Foundation.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    static func rename(_ from: String, _ to: String) throws {
        guard Foundation.rename(from, to) == 0 else { throw FileSystemError(operation: "rename", path: to, errno: errno) }
    }

    static func makeDirectory(_ path: String) throws {
        guard mkdir(path, 0o755) == 0 else { throw FileSystemError(operation: "mkdir", path: path, errno: errno) }
    }

    /// Creates `path` and any missing parents.
    static func makeDirectories(_ path: String) throws {
        if stat(path)?.isDirectory == true { return }
        let parent = (path as NSString).deletingLastPathComponent
        if parent != path, !parent.isEmpty { try makeDirectories(parent) }
        do { try makeDirectory(path) } catch let e as FileSystemError where e.errno == EEXIST {}
    }

    static func unlink(_ path: String) { _ = Foundation.unlink(path) }

    /// Removes a file or a whole tree.
    static func removeTree(_ path: String) throws {
        guard let st = stat(path) else { return }
        if st.isDirectory {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                try removeTree(path + "/" + name)
            }
            guard rmdir(path) == 0 else { throw FileSystemError(operation: "rmdir", path: path, errno: errno) }
        } else {
            guard Foundation.unlink(path) == 0 else { throw FileSystemError(operation: "unlink", path: path, errno: errno) }
        }
    }

    /// Names in a directory, hidden server files left out.
    static func list(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            .filter { !$0.hasPrefix(PathResolver.hiddenPrefix) }.sorted()
    }

    /// A fresh hidden name for a temp file next to `path`.
    static func tempSibling(of path: String, kind: String) -> String {
        let dir = (path as NSString).deletingLastPathComponent
        return dir + "/" + PathResolver.hiddenPrefix + kind + "-" + UUID().uuidString
    }
}

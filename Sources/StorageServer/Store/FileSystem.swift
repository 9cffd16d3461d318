import Foundation
import SkyliftSystem

/// A failed file-system call: which call, on which path, and errno.
struct FileSystemError: Error, CustomStringConvertible {
    let operation: String
    let path: String
    let errno: Int32
    /// A walk stopped at a folder nested deeper than ``FileSystem/maxTreeDepth`` (`errno` is ELOOP then).
    let isTooDeep: Bool

    var isNoSpace: Bool { errno == ENOSPC || errno == EDQUOT }
    /// The file system has no room for an extended attribute this large (or keeps none at all): 507 for
    /// the property, nothing changed (RFC 4918 §9.2.1).
    var cannotHoldProperties: Bool { isNoSpace || errno == E2BIG || errno == ERANGE || errno == ENOTSUP || errno == EOPNOTSUPP }
    var description: String {
        isTooDeep ? "\(operation) \(path): folders nest deeper than \(FileSystem.maxTreeDepth) levels" : "\(operation) \(path): \(Errno(rawValue: errno))"
    }

    init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
        isTooDeep = false
    }

    private init(tooDeep operation: String, path: String) {
        self.operation = operation
        self.path = path
        errno = ELOOP
        isTooDeep = true
    }

    /// `operation` did not enter the folder `path`: it lies deeper than ``FileSystem/maxTreeDepth``.
    static func tooDeep(_ operation: String, path: String) -> FileSystemError { .init(tooDeep: operation, path: path) }

    init(_ error: FileError) {
        self.init(operation: error.call ?? "access", path: error.path, errno: error.errno?.rawValue ?? EIO)
    }
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

    static func open(_ path: String, _ access: FileDescriptor.AccessMode, _ options: FileDescriptor.OpenOptions = [],
                     mode: mode_t = 0o644) throws -> Int32 {
        do { return try FileDescriptor.open(path, access, options: options, permissions: mode).rawValue } catch {
            throw FileSystemError(error)
        }
    }

    /// Writes all of `bytes`, retrying short writes and EINTR.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        do { try FileDescriptor(rawValue: fd).writeAll(bytes, path: path) } catch { throw FileSystemError(error) }
    }

    static func sync(_ fd: Int32, path: String) throws {
        do { try FileDescriptor(rawValue: fd).sync(path: path) } catch { throw FileSystemError(error) }
    }

    /// Makes a rename or creation inside `directory` durable.
    static func syncDirectory(_ directory: String) { Directory.sync(directory) }

    static func rename(_ from: String, _ to: String) throws {
        do { try Directory.rename(from, to: to) } catch { throw FileSystemError(error) }
    }

    /// The names in the open folder `folder` ("." and ".." left out); nil when it cannot be read.
    /// Reads through a descriptor of its own, so `folder`'s offset is untouched and it stays open.
    static func names(in folder: Int32) -> [String]? {
        (try? FileDescriptor(rawValue: folder).entries(path: "."))?.map(\.name)
    }

    /// The text of the symlink `name` in the open folder `folder`; nil when it is not a link or unreadable.
    static func readLink(at folder: Int32, _ name: String) -> String? { FileDescriptor(rawValue: folder).linkTarget(name) }

    static func makeDirectory(_ path: String) throws {
        guard mkdir(path, 0o755) == 0 else { throw FileSystemError(operation: "mkdir", path: path, errno: errno) }
    }

    /// Creates the folder `path` relative to its parent's descriptor (see ``FileTree``).
    static func makeDirectory(_ path: StoragePath) throws {
        guard case let .success(place) = FileTree.locate(path, followLast: false) else {
            throw FileSystemError(operation: "mkdir", path: path.relative, errno: ENOENT)
        }
        guard mkdirat(place.folder, place.name, 0o755) == 0 else {
            throw FileSystemError(operation: "mkdir", path: path.relative, errno: errno)
        }
    }

    /// Creates `path` and any missing parents.
    static func makeDirectories(_ path: String) throws {
        if stat(path)?.isDirectory == true { return }
        let parent = (path as NSString).deletingLastPathComponent
        if parent != path, !parent.isEmpty { try makeDirectories(parent) }
        do { try makeDirectory(path) } catch let e as FileSystemError where e.errno == EEXIST {}
    }

    static func unlink(_ path: String) { _ = Foundation.unlink(path) }

    /// Opens the folder `name` inside the open folder `folder`; a link there is refused, never followed.
    static func openFolder(in folder: Int32, _ name: String) throws -> Int32 {
        let fd = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: name, errno: errno) }
        return fd
    }

    /// Opens the regular file `name` of the open folder `folder` for reading. Never follows a link and never
    /// waits on a FIFO (`O_NONBLOCK`); anything that turns out not to be a regular file is closed and refused
    /// with `ENOENT`, like a missing one.
    static func openRegularFile(in folder: Int32, _ name: String) throws -> Int32 {
        let fd = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: name, errno: errno) }
        guard FileStat(fd: fd)?.kind == .file else {
            close(fd)
            throw FileSystemError(operation: "open", path: name, errno: ENOENT)
        }
        return fd
    }

    /// How deep COPY, DELETE and folder downloads go below the folder they start at. Far deeper than photo, media
    /// or backup trees get; it bounds the recursion (a connection thread has a 2 MiB stack) and the folder
    /// descriptors held open, one or two per level, whatever someone nested in the served tree.
    static let maxTreeDepth = 1024

    /// Removes the entry `name` of the open folder `folder` and, for a real folder, everything in it.
    /// Nothing is followed: a link anywhere in the tree is unlinked itself, whatever it points at. A folder
    /// more than ``maxTreeDepth`` below the start is not entered: the removal stops there with ``FileSystemError/tooDeep(_:path:)``,
    /// and what it had removed before stays removed.
    static func removeTree(in folder: Int32, _ name: String, depth: Int = 0) throws {
        guard let st = FileStat(at: folder, name) else {
            if errno == ENOENT { return }
            throw FileSystemError(operation: "stat", path: name, errno: errno)
        }
        if st.kind == .directory {
            guard depth <= maxTreeDepth else { throw FileSystemError.tooDeep("delete", path: name) }
            let fd = try openFolder(in: folder, name)
            defer { close(fd) }
            guard let members = names(in: fd) else { throw FileSystemError(operation: "read", path: name, errno: errno) }
            for child in members { try removeTree(in: fd, child, depth: depth + 1) }
            guard unlinkat(folder, name, AT_REMOVEDIR) == 0 else { throw FileSystemError(operation: "rmdir", path: name, errno: errno) }
        } else {
            guard unlinkat(folder, name, 0) == 0 else { throw FileSystemError(operation: "unlink", path: name, errno: errno) }
        }
    }

    /// A fresh hidden name for a temp file next to `path`.
    static func tempSibling(of path: String, kind: String) -> String {
        (path as NSString).deletingLastPathComponent + "/" + tempName(kind: kind)
    }

    /// A fresh hidden file name (`.skylift-<kind>-<run>-<uuid>`), which requests can never name.
    static func tempName(kind: String) -> String { PathResolver.hiddenPrefix + kind + "-" + runTag + "-" + UUID().uuidString }

    /// Marks the temp files of this process, so the start-up sweep (``StaleTempSweep``) can tell them from those
    /// a killed run left. A file's time cannot: it comes from the kernel's coarse clock, a few milliseconds behind
    /// the clock read at start, so a PUT begun just after start looked older than the start and was swept mid-write.
    static let runTag = "run" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
}

import Foundation
import SkyliftSystem

/// A failed file-system call of the store: which call, on which path (relative to the root where it can be),
/// and the `Errno`.
struct FileSystemError: Error, CustomStringConvertible {
    let operation: String
    let path: String
    let errno: Errno
    /// A walk stopped at a folder nested deeper than ``FileSystem/maxTreeDepth`` (`errno` is ELOOP then).
    let isTooDeep: Bool

    var isNoSpace: Bool { errno.isNoSpace }
    /// The file system has no room for an extended attribute this large (or keeps none at all): 507 for
    /// the property, nothing changed (RFC 4918 §9.2.1).
    var cannotHoldProperties: Bool {
        isNoSpace || errno.isUnsupported || errno == .argumentListTooLong || errno == .resultTooLarge
    }
    var description: String {
        isTooDeep ? "\(operation) \(path): folders nest deeper than \(FileSystem.maxTreeDepth) levels" : "\(operation) \(path): \(errno)"
    }

    init(operation: String, path: String, errno: Errno) {
        self.operation = operation
        self.path = path
        self.errno = errno
        isTooDeep = false
    }

    private init(tooDeep operation: String, path: String) {
        self.operation = operation
        self.path = path
        errno = .tooManyLinks
        isTooDeep = true
    }

    /// `operation` did not enter the folder `path`: it lies deeper than ``FileSystem/maxTreeDepth``.
    static func tooDeep(_ operation: String, path: String) -> FileSystemError { .init(tooDeep: operation, path: path) }

    init(_ error: FileError) {
        self.init(operation: error.call ?? "access", path: error.path, errno: error.errno ?? .ioError)
    }

    /// The store's error for any failure: a ``FileError`` keeps its call and errno.
    static func from(_ error: any Error, operation: String, path: String) -> FileSystemError {
        if let e = error as? FileSystemError { return e }
        if let e = error as? FileError { return FileSystemError(e) }
        return FileSystemError(operation: operation, path: path, errno: .ioError)
    }
}

/// The store's file operations over SkyliftSystem's typed descriptors, throwing ``FileSystemError``.
enum FileSystem {
    static func realPath(_ path: String) -> String? { FileDescriptor.realPath(path) }

    static func stat(_ path: String) -> FileStat? { FileStat(path: path) }

    static func stat(fd: FileDescriptor) -> FileStat? { FileStat(fd: fd) }

    static func open(_ path: String, _ access: FileDescriptor.AccessMode, _ options: FileDescriptor.OpenOptions = [],
                     mode: mode_t = 0o644) throws -> FileDescriptor {
        do { return try FileDescriptor.open(path, access, options: options, permissions: mode) } catch { throw FileSystemError(error) }
    }

    static func sync(_ fd: FileDescriptor, path: String) throws {
        do { try fd.sync(path: path) } catch { throw FileSystemError(error) }
    }

    /// Makes a rename or creation inside `directory` durable.
    static func syncDirectory(_ directory: String) { Directory.sync(directory) }

    static func rename(_ from: String, _ to: String) throws {
        do { try Directory.rename(from, to: to) } catch { throw FileSystemError(error) }
    }

    /// The names in the open folder `folder` ("." and ".." left out); nil when it cannot be read.
    /// Reads through a descriptor of its own, so `folder`'s offset is untouched and it stays open.
    static func names(in folder: FileDescriptor) -> [String]? { (try? folder.entries(path: "."))?.map(\.name) }

    static func makeDirectory(_ path: String) throws {
        do { try FileDescriptor.currentDirectory.makeFolder(path) } catch { throw FileSystemError(error) }
    }

    /// Creates the folder `path` relative to its parent's descriptor (see ``FileTree``).
    static func makeDirectory(_ path: StoragePath) throws {
        guard case let .success(place) = FileTree.locate(path, followLast: false) else {
            throw FileSystemError(operation: "mkdir", path: path.relative, errno: .noSuchFile)
        }
        do { try place.folder.makeFolder(place.name, path: path.relative) } catch { throw FileSystemError(error) }
    }

    /// Creates `path` and any missing parents.
    static func makeDirectories(_ path: String) throws {
        if stat(path)?.isDirectory == true { return }
        let parent = (path as NSString).deletingLastPathComponent
        if parent != path, !parent.isEmpty { try makeDirectories(parent) }
        do { try makeDirectory(path) } catch let e as FileSystemError where e.errno == .fileExists {}
    }

    static func unlink(_ path: String) { Directory.remove(path) }

    /// Opens the folder `name` inside the open folder `folder`; a link there is refused, never followed.
    static func openFolder(in folder: FileDescriptor, _ name: String) throws -> FileDescriptor {
        do { return try folder.openFolder(name) } catch { throw FileSystemError(error) }
    }

    /// Opens the regular file `name` of the open folder `folder` for reading (see
    /// ``SkyliftSystem/FileDescriptor/openRegularFile(_:path:)``: no link followed, no FIFO waited on).
    static func openRegularFile(in folder: FileDescriptor, _ name: String) throws -> FileDescriptor {
        do { return try folder.openRegularFile(name) } catch { throw FileSystemError(error) }
    }

    /// ``openRegularFile(in:_:)`` with what the open file is, as it was checked.
    static func openRegularFileWithStat(in folder: FileDescriptor, _ name: String) throws -> (fd: FileDescriptor, stat: FileStat) {
        do {
            let (fd, status) = try folder.openRegularFileWithStatus(name)
            return (fd, FileStat(status))
        } catch { throw FileSystemError(error) }
    }

    /// How deep COPY, DELETE and folder downloads go below the folder they start at. Far deeper than photo, media
    /// or backup trees get; it bounds the recursion (a connection thread has a 2 MiB stack) and the folder
    /// descriptors held open, one or two per level, whatever someone nested in the served tree.
    static let maxTreeDepth = 1024

    /// Removes the entry `name` of the open folder `folder` and, for a real folder, everything in it.
    /// Nothing is followed: a link anywhere in the tree is unlinked itself, whatever it points at. A folder
    /// more than ``maxTreeDepth`` below the start is not entered: the removal stops there with ``FileSystemError/tooDeep(_:path:)``,
    /// and what it had removed before stays removed. Walked with a stack of its own, not by recursion, so
    /// the depth costs no thread stack.
    static func removeTree(in folder: FileDescriptor, _ name: String) throws {
        do {
            let status: FileStatus
            do { status = try folder.status(of: name) } catch {
                if error.errno == .noSuchFile { return }
                throw error
            }
            guard status.isDirectory else { return try folder.removeEntry(name) }
            // Each level: the open folder, its name in its parent, and the members still to remove.
            var levels: [(fd: FileDescriptor, name: String, pending: [String])] = []
            defer { for level in levels { level.fd.close() } }
            let start = try folder.openFolder(name)
            levels.append((start, name, []))
            levels[0].pending = try start.entries(path: name).map(\.name)
            while let top = levels.last {
                guard let member = levels[levels.count - 1].pending.popLast() else {
                    levels.removeLast()
                    top.fd.close()
                    try (levels.last?.fd ?? folder).removeEntry(top.name, folder: true)
                    continue
                }
                guard (try? top.fd.status(of: member))?.isDirectory == true else {
                    do { try top.fd.removeEntry(member) } catch { if error.errno != .noSuchFile { throw error } }
                    continue
                }
                guard levels.count <= maxTreeDepth else { throw FileSystemError.tooDeep("delete", path: member) }
                let child = try top.fd.openFolder(member)
                levels.append((child, member, []))
                levels[levels.count - 1].pending = try child.entries(path: member).map(\.name)
            }
        } catch let error as FileError { throw FileSystemError(error) }
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

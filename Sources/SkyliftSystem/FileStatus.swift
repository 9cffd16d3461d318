#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat` says about a file, in portable fields: enough to tell one version of a file from another.
public struct FileStatus: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case regular, directory, symlink
        /// A FIFO, socket or device.
        case other
    }

    public var kind: Kind
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    /// Permission bits (`st_mode & 0o7777`).
    public var permissions: UInt16
    /// Last modification, whole seconds since 1970.
    public var modifiedSeconds: Int64
    /// Last modification, the nanoseconds within that second.
    public var modifiedNanoseconds: Int64
    /// Last change of the file or its metadata (`st_ctime`: a write, a rename, an extended attribute), whole seconds
    /// since 1970. Unlike the modification time, nobody can set it back.
    public var changedSeconds: Int64
    /// Last change, the nanoseconds within that second.
    public var changedNanoseconds: Int64

    public var isRegular: Bool { kind == .regular }
    public var isDirectory: Bool { kind == .directory }

    init(_ st: stat) {
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        permissions = UInt16(st.st_mode & 0o7777)
        modifiedSeconds = Int64(st.modificationTime.tv_sec)
        modifiedNanoseconds = Int64(st.modificationTime.tv_nsec)
        changedSeconds = Int64(st.changeTime.tv_sec)
        changedNanoseconds = Int64(st.changeTime.tv_nsec)
    }

    /// The entry at `path` (relative to `folder` when relative). With `followLinks` false a symbolic link is
    /// described itself, never followed.
    public init(_ path: String, in folder: FileDescriptor = .currentDirectory, followLinks: Bool = true) throws(FileError) {
        var st = stat()
        guard fstatat(folder.rawValue, path, &st, followLinks ? 0 : AT_SYMLINK_NOFOLLOW) == 0 else {
            throw FileError.last("stat", path)
        }
        self.init(st)
    }
}

extension FileDescriptor {
    /// The open file's status (`fstat`).
    public func status(path: String) throws(FileError) -> FileStatus {
        var st = stat()
        guard fstat(rawValue, &st) == 0 else { throw FileError.last("fstat", path) }
        return FileStatus(st)
    }
}

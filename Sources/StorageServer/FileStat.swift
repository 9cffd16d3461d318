import Foundation
import SkyliftCore

/// What the server needs to know about a file or directory: kind, size and validators.
struct FileStat: Sendable, Equatable {
    /// `other` is a FIFO, socket or device: never served.
    enum Kind: Sendable { case file, directory, symlink, other }
    var kind: Kind
    var size: Int64
    var inode: UInt64
    var mtimeNanoseconds: Int64

    var isDirectory: Bool { kind == .directory }

    /// Only regular files and folders are ever served.
    var isServed: Bool { kind == .file || kind == .directory }

    /// Strong validator: changes whenever the file is replaced (inode), resized or rewritten (mtime in ns).
    var etag: String {
        "\"\(String(inode, radix: 16))-\(String(size, radix: 16))-\(String(mtimeNanoseconds, radix: 16))\""
    }

    var lastModified: Date { Date(timeIntervalSince1970: TimeInterval(mtimeNanoseconds / 1_000_000_000)) }
}

extension FileStat {
    init(_ st: stat) {
        let mode = st.st_mode & S_IFMT
        switch mode {
        case S_IFDIR: kind = .directory
        case S_IFREG: kind = .file
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        size = Int64(st.st_size)
        inode = UInt64(st.st_ino)
        mtimeNanoseconds = .nanoseconds(seconds: Int64(st.modificationTime.tv_sec), nanoseconds: Int64(st.modificationTime.tv_nsec))
    }

    init?(path: String) {
        var st = stat()
        // fstatat, because Swift reads a bare `stat(...)` call as the struct's initializer.
        guard fstatat(AT_FDCWD, path, &st, 0) == 0 else { return nil }
        self.init(st)
    }

    /// The entry `name` in the open folder `folder` itself: a symlink is described, never followed.
    /// On nil, `errno` says why.
    init?(at folder: Int32, _ name: String) {
        var st = stat()
        guard fstatat(folder, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        self.init(st)
    }

    init?(fd: Int32) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        self.init(st)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SkyliftCore

/// `FileSystemAccess` over `lstat`, `openat` and `readdir`: one `fstatat` per file, relative to the open
/// folder, so a 100,000-file crawl costs little more than the kernel's own work.
struct PosixFileSystem: FileSystemAccess {
    /// Absolute path of the watched root, without a trailing slash.
    let rootPath: String

    func absolute(_ relativePath: String) -> String {
        relativePath.isEmpty ? rootPath : rootPath + "/" + relativePath
    }

    func snapshot(of relativePath: String) -> FileSnapshot? {
        var st = stat()
        guard lstat(absolute(relativePath), &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Self.snapshot(relativePath, st)
    }

    func isDirectory(_ relativePath: String) -> Bool {
        var st = stat()
        return lstat(absolute(relativePath), &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    func entries(of relativePath: String) throws(ListingFailure) -> [DirectoryEntry] {
        let fd = open(absolute(relativePath), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw Self.failure(errno) }
        guard let dir = fdopendir(fd) else {
            let code = errno
            close(fd)
            throw Self.failure(code)
        }
        defer { closedir(dir) }
        var out: [DirectoryEntry] = []
        let prefix = relativePath.isEmpty ? "" : relativePath + "/"
        while let ent = readdir(dir) {
            let name = withUnsafeBytes(of: ent.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let type = Int32(ent.pointee.d_type)
            if type == Int32(DT_DIR) {
                out.append(DirectoryEntry(name: name, kind: .directory))
                continue
            }
            if type != Int32(DT_REG) && type != Int32(DT_UNKNOWN) {
                out.append(DirectoryEntry(name: name, kind: .other))
                continue
            }
            var st = stat()
            guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }  // vanished meanwhile
            switch st.st_mode & S_IFMT {
            case S_IFREG: out.append(DirectoryEntry(name: name, kind: .file(Self.snapshot(prefix + name, st))))
            case S_IFDIR: out.append(DirectoryEntry(name: name, kind: .directory))
            default: out.append(DirectoryEntry(name: name, kind: .other))
            }
        }
        return out
    }

    static func snapshot(_ path: String, _ st: stat) -> FileSnapshot {
        #if canImport(Darwin)
        let mtime = Int64.nanoseconds(seconds: Int64(st.st_mtimespec.tv_sec), nanoseconds: Int64(st.st_mtimespec.tv_nsec))
        #else
        let mtime = Int64.nanoseconds(seconds: Int64(st.st_mtim.tv_sec), nanoseconds: Int64(st.st_mtim.tv_nsec))
        #endif
        return FileSnapshot(path: path, size: Int64(st.st_size), mtimeNanoseconds: mtime, inode: UInt64(st.st_ino))
    }

    static func failure(_ code: Int32) -> ListingFailure {
        ListingFailure(errno: code, reason: String(cString: strerror(code)) + " (errno \(code))")
    }
}

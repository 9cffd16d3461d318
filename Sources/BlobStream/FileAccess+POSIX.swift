#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ``FileAccess`` over POSIX open/fstat/pread (Linux and Darwin).
struct POSIXFileAccess: FileAccess {
    static let codes = FileErrorCodes(notFound: ENOENT, permissionDenied: EACCES, isDirectory: EISDIR, interrupted: EINTR)

    func openForReading(_ path: String) -> Result<Int32, FileAccessFailure> {
        // O_NONBLOCK keeps open() from hanging on a FIFO; FileSource rejects non-regular files right after.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        return fd >= 0 ? .success(fd) : .failure(FileAccessFailure(operation: "open", errno: errno))
    }

    func status(_ descriptor: Int32) -> Result<FileStatus, FileAccessFailure> {
        var st = stat()
        guard fstat(descriptor, &st) == 0 else { return .failure(FileAccessFailure(operation: "fstat", errno: errno)) }
        let type = st.st_mode & S_IFMT
        #if canImport(Darwin)
        let mtime = st.st_mtimespec
        #else
        let mtime = st.st_mtim
        #endif
        return .success(FileStatus(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
                                   modifiedSeconds: Int64(mtime.tv_sec), modifiedNanoseconds: Int64(mtime.tv_nsec),
                                   isDirectory: type == S_IFDIR, isRegular: type == S_IFREG))
    }

    func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Result<Int, FileAccessFailure> {
        while true {
            let n = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return .success(n) }
            if errno == EINTR { continue }
            return .failure(FileAccessFailure(operation: "pread", errno: errno))
        }
    }

    func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}

/// The file access for the platform this was built for.
func platformFileAccess() -> (any FileAccess, FileErrorCodes) { (POSIXFileAccess(), POSIXFileAccess.codes) }

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ``CacheFileIO`` over POSIX calls: pread/pwrite, fdatasync, ftruncate for sparse files, fallocate to
/// punch holes (Linux), flock for the owner lock.
struct POSIXCacheFileIO: CacheFileIO {
    func open(_ path: String, create: Bool) throws -> Int32 {
        let flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0)
        // 0600: cached bytes are the origin's content, fetched with a token other users do not have.
        let fd = libcOpen(path, flags, 0o600)
        guard fd >= 0 else { throw CacheIOError(call: "open", path: path, errno: errno) }
        return fd
    }

    func close(_ fd: Int32) { _ = libcClose(fd) }

    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String) throws -> Int {
        try repeatIO(buffer.count, call: "pread", path: path) { done in
            pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
        }
    }

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String) throws {
        let written = try repeatIO(bytes.count, call: "pwrite", path: path) { done in
            pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
        }
        guard written == bytes.count else { throw CacheIOError(call: "pwrite", path: path, errno: EIO) }
    }

    func syncData(_ fd: Int32, path: String) throws {
        #if os(Linux)
        guard fdatasync(fd) == 0 else { throw CacheIOError(call: "fdatasync", path: path, errno: errno) }
        #else
        try sync(fd, path: path)
        #endif
    }

    func sync(_ fd: Int32, path: String) throws {
        guard fsync(fd) == 0 else { throw CacheIOError(call: "fsync", path: path, errno: errno) }
    }

    func setLength(_ fd: Int32, _ length: Int64, path: String) throws {
        guard ftruncate(fd, off_t(length)) == 0 else { throw CacheIOError(call: "ftruncate", path: path, errno: errno) }
    }

    func length(_ fd: Int32, path: String) throws -> Int64 {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw CacheIOError(call: "fstat", path: path, errno: errno) }
        return Int64(st.st_size)
    }

    func punchHole(_ fd: Int32, offset: Int64, length: Int64, path: String) {
        #if os(Linux)
        // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE; the values are fixed by the Linux ABI.
        _ = linuxFallocate?(fd, 0x02 | 0x01, off_t(offset), off_t(length))
        #endif
    }

    func lockExclusive(_ path: String) throws -> Int32 {
        let fd = try open(path, create: true)
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            throw CacheIOError(call: "flock", path: path, errno: code)
        }
        return fd
    }

    func syncDirectory(_ directory: String) {
        let fd = libcOpen(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = libcClose(fd)
    }

    func describe(errno code: Int32) -> String { String(cString: strerror(code)) }

    func isNoSpace(_ code: Int32) -> Bool { code == ENOSPC || code == EDQUOT || code == EFBIG }

    func isWouldBlock(_ code: Int32) -> Bool { code == EWOULDBLOCK || code == EAGAIN }
}

/// Repeats a partial read or write until `count` bytes moved, retrying EINTR; stops early at end of file.
private func repeatIO(_ count: Int, call: String, path: String, _ step: (Int) -> Int) throws -> Int {
    var done = 0
    while done < count {
        let n = step(done)
        if n < 0 {
            if errno == EINTR { continue }
            throw CacheIOError(call: call, path: path, errno: errno)
        }
        if n == 0 { break }
        done += n
    }
    return done
}

// The method names above shadow the libc functions; these reach the originals.
private func libcOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    #if canImport(Glibc)
    Glibc.open(path, flags, mode)
    #else
    Darwin.open(path, flags, mode)
    #endif
}

private func libcClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #else
    Darwin.close(fd)
    #endif
}

#if os(Linux)
/// glibc's `fallocate`, which the Glibc module does not export (it is a `_GNU_SOURCE` declaration).
/// Looked up once; nil means holes are not punched and evicted space returns when the entry is deleted.
private let linuxFallocate: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fallocate") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32).self)
}()
#endif

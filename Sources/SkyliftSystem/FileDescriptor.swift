#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file or folder: a thin, typed wrapper over a POSIX descriptor with one interruption policy.
///
/// **EINTR policy.** A signal arriving during a call that may block makes it fail with `EINTR` without
/// having done anything (or, for a read or write, after a partial transfer that the call reports as such).
/// So `open`, `read`/`pread`, `write`/`pwrite`, `fsync`/`fdatasync` and `ftruncate` are simply repeated on
/// `EINTR`, and the partial transfers are continued. `close` is never repeated: Linux has released the
/// descriptor even when `close` reports `EINTR`, and a second `close` could hit a descriptor another thread
/// has just been given. Every descriptor is opened `O_CLOEXEC`, so none leaks into a child process.
///
/// Errors are ``FileError`` values naming the call and the path the caller passes along.
public struct FileDescriptor: Hashable, Sendable {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The folder `openat` and `fstatat` resolve relative paths against: the working directory.
    public static let currentDirectory = FileDescriptor(rawValue: AT_FDCWD)

    /// How the file is opened: for reading, writing or both.
    public struct AccessMode: Sendable, Hashable {
        let flags: Int32
        public static let readOnly = AccessMode(flags: O_RDONLY)
        public static let writeOnly = AccessMode(flags: O_WRONLY)
        public static let readWrite = AccessMode(flags: O_RDWR)
    }

    /// Extra `open` flags, by name.
    public struct OpenOptions: OptionSet, Sendable, Hashable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let create = OpenOptions(rawValue: O_CREAT)
        /// With `create`: fail with `EEXIST` rather than open an existing file (or a link planted there).
        public static let exclusive = OpenOptions(rawValue: O_EXCL)
        public static let truncate = OpenOptions(rawValue: O_TRUNC)
        /// Every write goes to the end of the file.
        public static let append = OpenOptions(rawValue: O_APPEND)
        /// Refuse (`ELOOP`) when the last component is a symbolic link.
        public static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        /// Keeps `open` from waiting on a FIFO.
        public static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        /// Refuse (`ENOTDIR`) anything but a folder.
        public static let directory = OpenOptions(rawValue: O_DIRECTORY)
    }

    /// Opens `path` (relative to `folder` when it is relative), retrying `EINTR`. `permissions` applies
    /// only when the file is created, and the umask may only remove bits from it.
    public static func open(_ path: String, _ mode: AccessMode, options: OpenOptions = [], permissions: mode_t = 0o600,
                            in folder: FileDescriptor = .currentDirectory, label: String? = nil) throws(FileError) -> FileDescriptor {
        let flags = mode.flags | options.rawValue | O_CLOEXEC
        while true {
            let fd = openat(folder.rawValue, path, flags, permissions)
            if fd >= 0 { return FileDescriptor(rawValue: fd) }
            if errno == EINTR { continue }
            throw FileError.last("open", label ?? path)
        }
    }

    /// Releases the descriptor; never retried (see the type's EINTR policy). Errors are ignored: by then
    /// nothing can be done about them, and every durable write is `sync`ed before its file is closed.
    public func close() { _ = systemClose(rawValue) }

    /// Reads once into `buffer` at the file position; returns the count (0 at end of file).
    public func read(into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileError) -> Int {
        try retrying("read", path) { systemRead(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Reads at `offset` until `buffer` is full or the file ends; returns the count.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String) throws(FileError) -> Int {
        var done = 0
        while done < buffer.count {
            let n = try retrying("pread", path) {
                pread(rawValue, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes all of `bytes` at the file position, continuing short writes.
    public func writeAll(_ bytes: UnsafeRawBufferPointer, path: String) throws(FileError) {
        var done = 0
        while done < bytes.count {
            let n = try retrying("write", path) { systemWrite(rawValue, bytes.baseAddress! + done, bytes.count - done) }
            guard n > 0 else { throw FileError(call: "write", path: path, errno: .ioError) }
            done += n
        }
    }

    /// Writes all of `bytes` at `offset`, continuing short writes.
    public func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String) throws(FileError) {
        var done = 0
        while done < bytes.count {
            let n = try retrying("pwrite", path) {
                pwrite(rawValue, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            guard n > 0 else { throw FileError(call: "pwrite", path: path, errno: .ioError) }
            done += n
        }
    }

    /// Flushes data and metadata to stable storage (`fsync`).
    public func sync(path: String) throws(FileError) {
        _ = try retrying("fsync", path) { Int(fsync(rawValue)) }
    }

    /// Flushes the data, and the metadata needed to read it back (`fdatasync`; `fsync` where there is none).
    public func syncData(path: String) throws(FileError) {
        _ = try retrying("fdatasync", path) { Int(dataSync(rawValue)) }
    }

    /// Sets the length; growing leaves a hole that takes no disk space.
    public func setLength(_ length: Int64, path: String) throws(FileError) {
        _ = try retrying("ftruncate", path) { Int(ftruncate(rawValue, off_t(length))) }
    }

    /// Runs `call` until it succeeds or fails with something other than `EINTR`.
    private func retrying(_ name: String, _ path: String, _ call: () -> Int) throws(FileError) -> Int {
        while true {
            let n = call()
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw FileError.last(name, path)
        }
    }
}

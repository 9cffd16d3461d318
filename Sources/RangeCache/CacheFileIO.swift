/// The few file-system calls the cache needs, kept behind a protocol so the portable core imports no libc.
///
/// Every call reports failures as ``CacheIOError`` with the path and `errno`.
protocol CacheFileIO: Sendable {
    /// Opens (creating when asked) a file for reading and writing; returns its descriptor.
    func open(_ path: String, create: Bool) throws -> Int32
    func close(_ fd: Int32)
    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (0 at end of file).
    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String) throws -> Int
    /// Writes all of `bytes` at `offset`.
    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String) throws
    /// Flushes the file's data (not necessarily its metadata) to stable storage.
    func syncData(_ fd: Int32, path: String) throws
    /// Flushes data and metadata.
    func sync(_ fd: Int32, path: String) throws
    /// Sets the file's length; growing it leaves a hole that takes no disk space.
    func setLength(_ fd: Int32, _ length: Int64, path: String) throws
    /// The file's current length.
    func length(_ fd: Int32, path: String) throws -> Int64
    /// Frees the disk blocks of a range, keeping the file's length; best effort where the OS cannot.
    func punchHole(_ fd: Int32, offset: Int64, length: Int64, path: String)
    /// Takes an exclusive advisory lock on `path` without waiting; returns the held descriptor, or throws
    /// ``CacheIOError`` with `EWOULDBLOCK` when another process holds it.
    func lockExclusive(_ path: String) throws -> Int32
    /// Makes a rename inside `directory` durable.
    func syncDirectory(_ directory: String)
    /// A readable explanation of an errno value.
    func describe(errno: Int32) -> String
    /// True for the errno values meaning the disk or quota is full.
    func isNoSpace(_ errno: Int32) -> Bool
    /// True for the errno value that `lockExclusive` reports when the lock is held elsewhere.
    func isWouldBlock(_ errno: Int32) -> Bool
}

/// A failed file-system call: which call, on which path, and the errno.
struct CacheIOError: Error {
    var call: String
    var path: String
    var errno: Int32
}

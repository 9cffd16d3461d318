import Foundation

/// Appends a request body to an open file through a bounded buffer, so small socket reads become few,
/// large writes. Owned by one request's connection thread.
final class FileSink {
    let fd: Int32
    let path: String
    private(set) var written: Int64 = 0
    private var buffer: UnsafeMutableRawBufferPointer
    private var filled = 0

    static let bufferSize = 512 * 1024

    /// Takes ownership of `fd`.
    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
    }

    deinit {
        buffer.deallocate()
        close(fd)
    }

    func append(_ chunk: UnsafeRawBufferPointer) throws {
        if filled + chunk.count > buffer.count { try flush() }
        if chunk.count >= buffer.count {
            try FileSystem.writeAll(fd, chunk, path: path)
        } else {
            (buffer.baseAddress! + filled).copyMemory(from: chunk.baseAddress!, byteCount: chunk.count)
            filled += chunk.count
        }
        written += Int64(chunk.count)
    }

    func flush() throws {
        guard filled > 0 else { return }
        let pending = UnsafeRawBufferPointer(rebasing: buffer[0..<filled])
        filled = 0
        try FileSystem.writeAll(fd, pending, path: path)
    }

    /// Flushes and fsyncs: once this returns, the bytes survive a crash.
    func sync() throws {
        try flush()
        try FileSystem.sync(fd, path: path)
    }

    /// Drops buffered bytes that were never written (used when the data is being thrown away).
    func discardBuffer() { filled = 0 }
}

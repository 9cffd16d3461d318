import Foundation
import SkyliftSystem

/// Appends a request body to an open file through a bounded buffer, so small socket reads become few,
/// large writes; every byte also goes through the digest recorder as it passes. Owned by one request's
/// connection thread.
final class FileSink {
    let file: FileDescriptor
    let path: String
    /// Sees every byte appended; nil where the bytes are recorded some other way (tus, hashed at completion).
    let digests: DigestRecorder?
    private(set) var written: Int64 = 0
    private let buffer: UnsafeMutableRawBufferPointer
    private var filled = 0

    static let bufferSize = 512 * 1024

    /// Takes ownership of `file`.
    init(file: FileDescriptor, path: String, digests: DigestRecorder?) {
        self.file = file
        self.path = path
        self.digests = digests
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 64)
    }

    /// Takes ownership of the raw descriptor `fd`; no digests (the tus receiver's form).
    convenience init(fd: Int32, path: String) {
        self.init(file: FileDescriptor(rawValue: fd), path: path, digests: nil)
    }

    var fd: Int32 { file.rawValue }

    deinit {
        buffer.deallocate()
        file.close()
    }

    func append(_ chunk: UnsafeRawBufferPointer) throws {
        var rest = chunk
        while let source = rest.baseAddress, !rest.isEmpty {
            if filled == buffer.count { try flush() }
            guard let target = buffer.baseAddress else { return }
            let n = min(rest.count, buffer.count - filled)
            (target + filled).copyMemory(from: source, byteCount: n)
            filled += n
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
        }
        written += Int64(chunk.count)
    }

    /// Flushes, records the digests on the file, and fsyncs: once this returns, the bytes and their record
    /// survive a crash.
    func sync(recordingIn store: DigestStore) throws {
        try flush()
        if let digests { store.save(digests, fd: file, path: path) }
        try sync()
    }

    /// Flushes and fsyncs: once this returns, the bytes survive a crash.
    func sync() throws {
        try flush()
        do { try file.sync(path: path) } catch { throw FileSystemError(error) }
    }

    /// Drops buffered bytes that were never written (used when the data is being thrown away).
    func discardBuffer() { filled = 0 }

    /// Hashes and writes the buffered bytes: after it, every byte appended is in the recorder's digests.
    func flush() throws {
        guard filled > 0 else { return }
        let pending = UnsafeRawBufferPointer(rebasing: buffer[0 ..< filled])
        filled = 0
        // Only bench/serve/digest.sh (NOHASH=1) builds with SKYLIFT_BENCH_NO_HASHING: this server with the hash
        // left out, so the hashing's cost can be told apart from the rest of the write path.
        #if !SKYLIFT_BENCH_NO_HASHING
        digests?.update(pending)
        #endif
        try write(pending)
    }

    private func write(_ bytes: UnsafeRawBufferPointer) throws {
        do { try file.writeAll(bytes, path: path) } catch { throw FileSystemError(error) }
    }
}

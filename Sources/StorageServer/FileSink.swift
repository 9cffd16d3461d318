import Dispatch
import Foundation
import SkyliftSystem

/// Appends a request body to an open file through a bounded buffer, so small socket reads become few,
/// large writes; every byte also goes through the digest recorder. Owned by one request's connection thread.
///
/// With a recorder, hashing and writing run on a worker while the connection thread fills a second buffer
/// (two buffers of ``bufferSize``, so memory stays bounded): the SHA-256 then costs the upload little more
/// than a core it would not have used. Without one (tus, recorded at completion) every write is inline.
final class FileSink: @unchecked Sendable {
    // @unchecked: the connection thread owns `buffer` and `filled`; the worker owns the other buffer between
    // being handed it in `flush` and signalling `idle`, and writes `failure` only then. The connection thread
    // reads `failure` and reuses that buffer only after waiting on `idle`, which orders the two.
    let file: FileDescriptor
    let path: String
    /// Sees every byte appended; nil where the bytes are recorded some other way (tus, hashed at completion).
    let digests: DigestRecorder?
    private(set) var written: Int64 = 0
    private var buffer: UnsafeMutableRawBufferPointer
    private var spare: UnsafeMutableRawBufferPointer
    private var filled = 0
    private let worker: DispatchQueue?
    private let idle = DispatchSemaphore(value: 1)
    private var failure: (any Error)?

    static let bufferSize = 512 * 1024

    /// Takes ownership of `file`.
    init(file: FileDescriptor, path: String, digests: DigestRecorder?) {
        self.file = file
        self.path = path
        self.digests = digests
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
        spare = digests == nil ? UnsafeMutableRawBufferPointer(start: nil, count: 0)
            : .allocate(byteCount: Self.bufferSize, alignment: 16)
        worker = digests == nil ? nil : DispatchQueue(label: "skylift.filesink")
    }

    /// Takes ownership of the raw descriptor `fd`; no digests (the tus receiver's form).
    convenience init(fd: Int32, path: String) {
        self.init(file: FileDescriptor(rawValue: fd), path: path, digests: nil)
    }

    var fd: Int32 { file.rawValue }

    deinit {
        // Back to its initial value before it goes: libdispatch traps on a semaphore disposed below it.
        idle.wait()
        idle.signal()
        buffer.deallocate()
        if spare.baseAddress != nil { spare.deallocate() }
        file.close()
    }

    func append(_ chunk: UnsafeRawBufferPointer) throws {
        guard let source = chunk.baseAddress, !chunk.isEmpty else { return }
        if filled + chunk.count > buffer.count { try flush() }
        if chunk.count >= buffer.count {
            try drain()
            digests?.update(chunk)
            try write(chunk)
        } else if let base = buffer.baseAddress {
            (base + filled).copyMemory(from: source, byteCount: chunk.count)
            filled += chunk.count
        }
        written += Int64(chunk.count)
    }

    /// Hands the buffered bytes on: to the worker (which hashes and writes them while the next buffer fills)
    /// or, without digests, straight to the file.
    func flush() throws {
        guard filled > 0 else { return }
        let pending = Pending(bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
        filled = 0
        guard let worker else { return try write(pending.bytes) }
        idle.wait()
        if let failure {
            idle.signal()
            throw failure
        }
        swap(&buffer, &spare)
        worker.async { [self] in
            digests?.update(pending.bytes)
            do { try write(pending.bytes) } catch { failure = error }
            idle.signal()
        }
    }

    /// Waits for the worker's write in flight; throws its failure.
    private func drain() throws {
        guard worker != nil else { return }
        idle.wait()
        idle.signal()
        if let failure { throw failure }
    }

    /// Flushes, records the digests on the file, and fsyncs: once this returns, the bytes and their record
    /// survive a crash.
    func sync(recordingIn store: DigestStore) throws {
        try flush()
        try drain()
        if let digests { store.save(digests, fd: file, path: path) }
        try sync()
    }

    /// Flushes and fsyncs: once this returns, the bytes survive a crash.
    func sync() throws {
        try flush()
        try drain()
        do { try file.sync(path: path) } catch { throw FileSystemError(error) }
    }

    /// Drops buffered bytes that were never written (used when the data is being thrown away); a write
    /// already handed to the worker finishes first.
    func discardBuffer() {
        filled = 0
        try? drain()
    }

    private func write(_ bytes: UnsafeRawBufferPointer) throws {
        do { try file.writeAll(bytes, path: path) } catch { throw FileSystemError(error) }
    }

    /// A buffer handed to the worker; see the type's @unchecked note for why it may cross threads.
    private struct Pending: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
    }
}

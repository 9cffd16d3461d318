import Foundation
import SkyliftSystem

/// Appends a request body to an open file through a bounded buffer, so small socket reads become few,
/// large writes; every byte also goes through the digest recorder as it passes. Owned by one request's
/// connection thread.
///
/// A body larger than one buffer is hashed on a thread of its own (``HashRing``) while this thread goes on
/// receiving and writing; a small one is hashed here, with no thread started.
final class FileSink {
    let file: FileDescriptor
    let path: String
    /// Sees every byte appended; nil where the bytes are recorded some other way (a tus upload hashed at completion).
    let digests: DigestRecorder?
    private(set) var written: Int64 = 0
    /// The first buffer: enough for a small body, and freed once a larger one has moved on to the ring's.
    private var own: UnsafeMutableRawBufferPointer?
    /// Where appended bytes go: `own`, or once the hashing thread runs, the ring's buffer of the moment.
    private var buffer: UnsafeMutableRawBufferPointer
    private var filled = 0
    private var ring: HashRing?

    static let bufferSize = 512 * 1024

    /// Takes ownership of `file`.
    init(file: FileDescriptor, path: String, digests: DigestRecorder?) {
        self.file = file
        self.path = path
        self.digests = digests
        let first = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 64)
        own = first
        buffer = first
    }

    /// Takes ownership of `file`; no digests.
    convenience init(file: FileDescriptor, path: String) {
        self.init(file: file, path: path, digests: nil)
    }

    deinit {
        ring?.close()
        own?.deallocate()
        file.close()
    }

    func append(_ chunk: UnsafeRawBufferPointer) throws {
        var rest = chunk
        while let source = rest.baseAddress, !rest.isEmpty {
            if filled == buffer.count { try flush(more: true) }
            guard let target = buffer.baseAddress else { return }
            let n = min(rest.count, buffer.count - filled)
            (target + filled).copyMemory(from: source, byteCount: n)
            filled += n
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
        }
        written += Int64(chunk.count)
    }

    /// Writes what is buffered (its hash may still be running).
    func flush() throws { try flush(more: false) }

    /// Flushes and waits for the hash of every byte appended: the recorder's digests are final afterwards.
    func finishHashing() throws {
        try flush(more: false)
        ring?.finish()
    }

    /// Flushes, records the digests on the file, and fsyncs: once this returns, the bytes and their record
    /// survive a crash.
    func sync(recordingIn store: DigestStore) throws {
        try finishHashing()
        if let digests { store.save(digests, fd: file, path: path) }
        try sync()
    }

    /// Flushes and fsyncs: once this returns, the bytes survive a crash.
    func sync() throws {
        try flush()
        do { try file.sync(path: path) } catch { throw FileSystemError(error) }
    }

    /// Drops buffered bytes that were never written (used when the data is being thrown away).
    func discardBuffer() {
        filled = 0
        ring?.close()
    }

    /// Writes the buffer and has it hashed: here while the body is small; once it outgrows the first buffer
    /// (`more`: bytes are still coming), on the ring's thread, handed over before the write so both run at once.
    private func flush(more: Bool) throws {
        guard filled > 0 else { return }
        let pending = UnsafeRawBufferPointer(rebasing: buffer[0 ..< filled])
        filled = 0
        if let ring {
            buffer = ring.handOver(pending.count)
            try write(pending)
            return
        }
        // Only bench/serve/digest.sh (NOHASH=1) builds with SKYLIFT_BENCH_NO_HASHING: this server with the hash
        // left out, so the hashing's cost can be told apart from the rest of the write path.
        #if !SKYLIFT_BENCH_NO_HASHING
        digests?.update(pending)
        if more, let digests {
            let started = HashRing(recorder: digests, budget: digests.ringBudget)
            ring = started
            buffer = started.buffer
        }
        #endif
        try write(pending)
        if ring != nil {
            own?.deallocate()
            own = nil
        }
    }

    private func write(_ bytes: UnsafeRawBufferPointer) throws {
        do { try file.writeAll(bytes, path: path) } catch { throw FileSystemError(error) }
    }
}

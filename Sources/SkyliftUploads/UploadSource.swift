import SkyliftBlobStream
import Foundation
import SkyliftHashing
import SkyliftCore

/// What the engine needs from the bytes it uploads: a stable identity, slices as streams, and a way to
/// notice the source changed under it. Implemented over BlobStream's sources.
public protocol UploadSource: Sendable {
    /// The source as the user named it (absolute path or URL), for messages and resume records.
    var name: String { get }
    /// Total length in bytes.
    var length: Int64 { get }
    /// A string that changes whenever the content may have (file: device, inode, size, mtime).
    var identity: String { get }
    /// Throws ``UploadError/sourceChanged(path:)`` when the source no longer has ``identity``.
    func checkUnchanged() async throws
    /// A stream of exactly the bytes of `range`, opened fresh for each call.
    func open(_ range: ByteRange) throws -> InputStream
    /// Digest of the bytes of `range`, read from the source (never buffered whole).
    func digest(of range: ByteRange, _ algorithm: DigestAlgorithm) async throws -> [UInt8]
}

extension UploadSource {
    /// ``digest(_:_:)`` on the engine's `skylift-source` executor: streams over network sources block while
    /// opening, which must not happen on the Swift concurrency pool. The default ``digest(of:_:)``.
    public func digest(of range: ByteRange, _ algorithm: DigestAlgorithm) async throws -> [UInt8] {
        try await UploadExecutors.sourceReads.run { try self.digest(range, algorithm) }
    }

    /// Digest of `range`, read through ``open(_:)`` in 256 KiB steps: nothing larger is held in memory.
    public func digest(_ range: ByteRange, _ algorithm: DigestAlgorithm) throws -> [UInt8] {
        let stream = try open(range)
        stream.open()
        defer { stream.close() }
        var digest = Digest(algorithm)
        let size = 256 << 10
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        defer { buffer.deallocate() }
        var remaining = range.length
        while remaining > 0 {
            try Task.checkCancellation()
            let n = stream.read(buffer, maxLength: Int(min(Int64(size), remaining)))
            if n < 0 {
                if case .contentChanged? = stream.streamError as? BlobStreamError { throw UploadError.sourceChanged(path: name) }
                throw UploadError.sourceUnreadable(path: name, reason: stream.streamError.map { String(describing: $0) } ?? "read failed")
            }
            if n == 0 { throw UploadError.sourceChanged(path: name) }  // shorter than its identity said
            digest.update(UnsafeRawBufferPointer(start: buffer, count: n))
            remaining -= Int64(n)
        }
        return digest.finalize()
    }
}

import Foundation
import SkyliftCore
import SkyliftHTTPClient
import SkyliftHTTPServer

/// A file of a bucket found by a lookup: its bytes are read when a body asks for them, pinned to the ETag the
/// lookup saw.
final class BucketFile: StoredFile {
    let backend: BucketBackend
    let path: String
    let item: StoredItem

    init(backend: BucketBackend, path: String, item: StoredItem) {
        self.backend = backend
        self.path = path
        self.item = item
    }

    func digestRecord() -> DigestRecord? { BucketBackend.record(item) }

    /// Always streamed: reading a small object here would cost the same round trip before the head goes out.
    func smallBytes(_ range: ByteRange) -> [UInt8]? { nil }

    func body(_ range: ByteRange) -> HTTPResponse.Body {
        range.length == 0 ? .empty : .stream(length: range.length, producer: BucketBody(file: self, range: range))
    }

    func multipartBody(_ parts: [RangedResponse.Part], length: Int64) -> HTTPResponse.Body {
        .stream(length: length, producer: MultipartRanges(parts: parts, length: length, close: {}) { [self] buffer, offset in
            // One ranged read per piece the server asks for; a multipart answer is a few small ranges.
            let wanted = ByteRange(offset: offset, length: Int64(buffer.count))
            guard let bytes = try? read(wanted, upTo: buffer.count), !bytes.isEmpty else { return nil }
            buffer.copyBytes(from: bytes)
            return bytes.count
        })
    }

    func close() {}

    /// The object's bytes of `range`, at most `limit` of them, as long as it still has the looked-up ETag.
    private func read(_ range: ByteRange, upTo limit: Int) throws -> [UInt8] {
        let store = backend.store, path = path, etag = item.etag
        return try backend.executor.runBlocking(timeout: backend.timeout) {
            try await store.read(path, range: range, ifMatch: etag).collect(upTo: limit)
        }
    }
}

/// A file's bytes streamed from the bucket as the server asks for them: one GET for the whole answer, its body
/// read a chunk at a time on the server's work threads (a blocking producer), so no more than a chunk is held.
///
/// `@unchecked Sendable`: the server calls `produce` and `close` one at a time (``HTTPBodyProducer``), and the
/// iterator box is touched only inside those calls, while the calling thread waits.
final class BucketBody: HTTPBodyProducer, @unchecked Sendable {
    private let file: BucketFile
    private let range: ByteRange
    private var chunks: ChunkSource?
    private var pending: [UInt8] = []
    private var used = 0
    /// Position in the answer of the next byte to hand out.
    private var next: Int64 = 0

    init(file: BucketFile, range: ByteRange) {
        self.file = file
        self.range = range
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult {
        guard position == next else { return .failed }
        if position >= range.length { return .end }
        if used == pending.count {
            guard let chunk = nextChunk(), !chunk.isEmpty else { return .failed }
            pending = chunk
            used = 0
        }
        let n = min(buffer.count, pending.count - used, Int(range.length - position))
        pending.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + used, byteCount: n) }
        used += n
        next += Int64(n)
        return .bytes(n)
    }

    /// The next chunk of the object's body (starting the GET on the first call); nil when it failed or ended early.
    private func nextChunk() -> [UInt8]? {
        let backend = file.backend, path = file.path, range = range, etag = file.item.etag
        if chunks == nil {
            guard let response = try? backend.executor.runBlocking(timeout: backend.timeout, {
                try await backend.store.read(path, range: range, ifMatch: etag)
            }), response.status == 200 || response.status == 206 else { return nil }
            chunks = ChunkSource(response.body)
        }
        guard let chunks else { return nil }
        return try? backend.executor.runBlocking(timeout: backend.timeout) { try await chunks.next() }
    }

    func close() {
        chunks?.cancel()
        chunks = nil
    }
}

/// The iterator of a response body, kept between the blocking calls that each take one chunk.
///
/// `@unchecked Sendable`: only one `next` runs at a time (its caller waits for it), so the iterator is never
/// touched from two threads at once.
private final class ChunkSource: @unchecked Sendable {
    private let body: HTTPResponseBody
    private var iterator: HTTPResponseBody.Iterator

    init(_ body: HTTPResponseBody) {
        self.body = body
        iterator = body.makeAsyncIterator()
    }

    func next() async throws -> [UInt8]? { try await iterator.next() }

    func cancel() { body.cancel() }
}

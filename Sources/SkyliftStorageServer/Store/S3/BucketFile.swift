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

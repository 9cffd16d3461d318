import SkyliftBlobStream
import Foundation
import TestProbes
import Testing

/// A wrapper that only counts: everything but `read` comes from ForwardingInputStream.
private final class CountingStream: ForwardingInputStream {
    var count = 0

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let n = base.read(buffer, maxLength: len)
        if n > 0 { count += n }
        return n
    }
}

@Suite struct ForwardingInputStreamTests {
    @Test func passesBytesStatusAndOffsetThroughAndRefusesTheRest() async throws {
        let bytes = (0 ..< 300_001).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let seen = await onThread { () -> ([UInt8], Int, [Stream.Status], Int64?, Bool, Bool, Bool) in
            let base = BlobInputStream(source: MemorySource(bytes))
            #expect(setOffset(base, 1))
            let stream = CountingStream(base: base)
            var statuses = [stream.streamStatus]
            stream.open()
            statuses.append(stream.streamStatus)
            let moved = setOffset(stream, 0)
            var pointer: UnsafeMutablePointer<UInt8>?
            var length = 0
            let buffered = stream.getBuffer(&pointer, length: &length)
            let (got, last) = drain(stream, readSize: 65_537)
            statuses.append(stream.streamStatus)
            let offset = (stream.property(forKey: .fileCurrentOffsetKey) as? NSNumber)?.int64Value
            stream.close()
            statuses.append(stream.streamStatus)
            return (got, last, statuses, offset, moved, buffered, stream.delegate == nil && stream.count == got.count)
        }
        let (got, last, statuses, offset, moved, buffered, counted) = seen
        #expect(got == Array(bytes[1...]) && last == 0)
        #expect(statuses == [.notOpen, .open, .atEnd, .closed])
        #expect(offset == Int64(bytes.count))
        #expect(!moved, "the wrapper must not move the base stream under its own count")
        #expect(!buffered, "bytes handed out by getBuffer would bypass the wrapper's read")
        #expect(counted)
    }

    @Test func aFailingBaseStreamFailsTheWrapper() async throws {
        let dir = try TempFolder("blobstream")
        let missing = dir.url.appendingPathComponent("gone.bin").path
        let (status, error, n) = await onThread { () -> (Stream.Status, String?, Int) in
            let stream = CountingStream(base: BlobInputStream(source: FileSource(path: missing)))
            stream.open()
            var byte: UInt8 = 0
            let n = stream.read(&byte, maxLength: 1)
            return (stream.streamStatus, stream.streamError.map { "\($0)" }, n)
        }
        #expect(status == .error && n == -1)
        #expect(error == "\(BlobStreamError.notFound(path: missing))")
    }
}

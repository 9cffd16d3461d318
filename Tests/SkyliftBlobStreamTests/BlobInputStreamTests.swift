@testable import SkyliftBlobStream
import Foundation
import Synchronization
import TestProbes
import Testing

/// Records every event with the stream's status at that moment and the thread it arrived on.
final class EventLog: NSObject, StreamDelegate, @unchecked Sendable {
    // @unchecked Sendable: all fields sit behind `lock`.
    private let lock = NSLock()
    private var _events: [(Stream.Event, Stream.Status)] = []
    private var _bytes: [UInt8] = []
    private var _threads: Set<ObjectIdentifier> = []
    let done = DispatchSemaphore(value: 0)
    let readSize: Int

    init(readSize: Int) { self.readSize = readSize }

    var events: [(Stream.Event, Stream.Status)] { lock.withLock { _events } }
    var bytes: [UInt8] { lock.withLock { _bytes } }
    var threads: Set<ObjectIdentifier> { lock.withLock { _threads } }

    func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
        lock.withLock {
            _events.append((eventCode, aStream.streamStatus))
            _threads.insert(ObjectIdentifier(Thread.current))
        }
        switch eventCode {
        case .hasBytesAvailable:
            // One read per event, as a well-behaved delegate does: this must never block.
            guard let input = aStream as? InputStream else { return }
            var buf = [UInt8](repeating: 0, count: readSize)
            let n = input.read(&buf, maxLength: readSize)
            if n > 0 { lock.withLock { _bytes += buf[0 ..< n] } }
        case .endEncountered, .errorOccurred:
            done.signal()
        default:
            break
        }
    }
}

@Suite struct BlobInputStreamTests {
    @Test func syncModeFromABackgroundThread() async throws {
        let dir = try TempFolder("blobstream")
        let (path, bytes) = try dir.randomFile("sync.bin", count: 700_001)
        let result = await onThread { () -> ([UInt8], Int, Stream.Status, Stream.Status) in
            let stream = BlobInputStream(source: FileSource(path: path))
            let before = stream.streamStatus
            stream.open()
            let (got, last) = drain(stream, readSize: 4093)
            let after = stream.streamStatus
            stream.close()
            return (got, last, before, after)
        }
        #expect(result.2 == .notOpen)
        #expect(result.0 == bytes)
        #expect(result.1 == 0)
        #expect(result.3 == .atEnd)
    }

    @Test func offsetBeforeAndAfterOpen() throws {
        let dir = try TempFolder("blobstream")
        let (path, bytes) = try dir.randomFile("offset.bin", count: 300_000)
        let stream = BlobInputStream(source: FileSource(path: path), blockSize: 50_000)
        #expect(setOffset(stream, 123_456))
        stream.open()
        #expect(stream.info?.length == 300_000)
        #expect(drain(stream, readSize: 1000, limit: 10).bytes == Array(bytes[123_456 ..< 123_466]))
        #expect(setOffset(stream, 5))
        #expect(drain(stream, readSize: 1000, limit: 10).bytes == Array(bytes[5 ..< 15]))
        #expect(!setOffset(stream, 300_001))
        #expect(setOffset(stream, 300_000))
        #expect(!stream.hasBytesAvailable)
        #expect(drain(stream).bytes.isEmpty)
        #expect(stream.streamStatus == .atEnd)
        // Back from the end: reading resumes.
        #expect(setOffset(stream, 299_990))
        #expect(drain(stream).bytes == Array(bytes[299_990...]))
        stream.close()
        #expect(!setOffset(stream, 0))
        #expect(stream.streamStatus == .closed)
    }

    @Test func offsetPastTheEndFailsAtOpen() throws {
        let dir = try TempFolder("blobstream")
        let (path, _) = try dir.randomFile("short.bin", count: 100)
        let stream = BlobInputStream(source: FileSource(path: path))
        setOffset(stream, 101)
        stream.open()
        #expect(stream.streamError as? BlobStreamError == .offsetOutOfRange(name: path, offset: 101, length: 100))
    }

    @Test func getBufferHandsOutTheCachedBlock() throws {
        let bytes = (0 ..< 10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let stream = BlobInputStream(source: MemorySource(bytes), blockSize: 4096)
        stream.open()
        var pointer: UnsafeMutablePointer<UInt8>?
        var length = 0
        #expect(!stream.getBuffer(&pointer, length: &length)) // nothing read yet, so nothing cached
        var one = [UInt8](repeating: 0, count: 1)
        #expect(stream.read(&one, maxLength: 1) == 1)
        #expect(stream.getBuffer(&pointer, length: &length))
        #expect(length == 4095)
        let handed = pointer.map { Array(UnsafeBufferPointer(start: $0, count: length)) }
        #expect(handed == Array(bytes[1 ..< 4096]))
        #expect(drain(stream).bytes == Array(bytes[4096...]))
    }

    @Test func asyncModeEventOrderOnAQueue() throws {
        let dir = try TempFolder("blobstream")
        let (path, bytes) = try dir.randomFile("async.bin", count: 500_000)
        let gated = GatedSource(FileSource(path: path))
        let stream = BlobInputStream(source: gated, mode: .asynchronous(events: DispatchQueue(label: "events")), blockSize: 65536)
        let log = EventLog(readSize: 30_000)
        stream.delegate = log
        #expect(stream.streamStatus == .notOpen)
        stream.open()
        // The source cannot complete before the gate opens, so this is not a race.
        #expect(stream.streamStatus == .opening)
        gated.gate.signal()
        log.done.wait()
        let events = log.events
        #expect(events.first?.0 == .openCompleted)
        #expect(events.first?.1 == .open)
        #expect(events.last?.0 == .endEncountered)
        #expect(events.last?.1 == .atEnd)
        let middle = events.dropFirst().dropLast()
        #expect(!middle.isEmpty)
        #expect(middle.allSatisfy { $0.0 == .hasBytesAvailable && ($0.1 == .open || $0.1 == .atEnd) })
        #expect(log.bytes == bytes)
        stream.close()
        #expect(stream.streamStatus == .closed)
    }

    @Test func asyncModeDeliversOnTheScheduledRunLoop() async throws {
        let bytes = (0 ..< 200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let log = EventLog(readSize: 16_384)
        let finished = Atomic<Bool>(false)
        let ready = DispatchSemaphore(value: 0)
        let loopThread = Mutex<(RunLoop, Thread)?>(nil)
        let thread = Thread {
            // A far-off timer keeps the run loop from returning at once for want of sources.
            RunLoop.current.add(Timer(timeInterval: 3600, repeats: true) { _ in }, forMode: .default)
            loopThread.withLock { $0 = (RunLoop.current, Thread.current) }
            ready.signal()
            while !finished.load(ordering: .acquiring) {
                _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
            }
        }
        thread.start()
        ready.wait()
        let (runLoop, loopThreadObject) = try #require(loopThread.withLock { $0 })
        let stream = BlobInputStream(source: MemorySource(bytes), mode: .asynchronous(events: nil), blockSize: 32_768)
        stream.delegate = log
        stream.schedule(in: runLoop, forMode: .default)
        stream.open()
        log.done.wait()
        finished.store(true, ordering: .releasing)
        #expect(log.bytes == bytes)
        #expect(log.threads == [ObjectIdentifier(loopThreadObject)])
        #expect(log.events.first?.0 == .openCompleted)
        #expect(log.events.last?.0 == .endEncountered)
    }

    @Test func syncOpenOnTheCompletionQueueIsAnErrorNotAHang() throws {
        let gated = GatedSource(MemorySource([1, 2, 3]))
        gated.gate.signal()
        let stream = BlobInputStream(source: gated)
        gated.queue.sync { stream.open() }
        #expect(stream.streamStatus == .error)
        #expect(stream.streamError as? BlobStreamError == .synchronousOpenWouldDeadlock(name: "memory"))
        // From any other thread the same kind of source opens fine.
        let other = GatedSource(MemorySource([1, 2, 3]))
        other.gate.signal()
        let ok = BlobInputStream(source: other)
        ok.open()
        #expect(ok.streamStatus == .open)
        #expect(drain(ok).bytes == [1, 2, 3])
    }

    @Test(arguments: [BlobInputStream.Mode.synchronous, .asynchronous(events: DispatchQueue(label: "ev"))])
    func invalidatedSourceWithSameIdentityContinuesExactly(mode: BlobInputStream.Mode) throws {
        let bytes = (0 ..< 300_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let source = FlakySource(bytes, every: 10_000, changesOnReopen: false)
        let stream = BlobInputStream(source: source, mode: mode, blockSize: 8192)
        stream.open()
        let (got, last) = drain(stream, readSize: 3000)
        #expect(stream.streamError == nil)
        #expect(last == 0)
        #expect(got == bytes)
        #expect(source.opens > 20)
    }

    @Test func invalidatedSourceWithNewIdentityFails() throws {
        let bytes = (0 ..< 300_000).map { UInt8(truncatingIfNeeded: $0) }
        let source = FlakySource(bytes, every: 10_000, changesOnReopen: true)
        let stream = BlobInputStream(source: source, blockSize: 8192)
        stream.open()
        let (got, last) = drain(stream, readSize: 3000)
        #expect(last == -1)
        #expect(stream.streamError as? BlobStreamError == .contentChanged(name: "flaky-source"))
        // Everything delivered came from the first version.
        #expect(got == Array(bytes[0 ..< got.count]))
        #expect(got.count < bytes.count)
    }
}

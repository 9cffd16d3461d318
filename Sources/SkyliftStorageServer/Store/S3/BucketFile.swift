import Foundation
import SkyliftCore
import SkyliftHTTPClient
import SkyliftHTTPServer
import Synchronization

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

/// A file's bytes streamed from the bucket to the client: one GET for the whole answer, read by a task into a
/// bounded buffer (``limit``) that the event loop empties as the client takes the bytes. The loop never waits:
/// with nothing buffered it parks the connection and the task wakes it; with the buffer full the task waits for
/// room, and the bucket's transfer waits with it.
///
/// `@unchecked Sendable`: everything the task and the loop share is in `state`, under its lock.
final class BucketBody: HTTPEventBodyProducer, @unchecked Sendable {
    private struct State {
        var chunks: [[UInt8]] = []
        var used = 0
        var bytes = 0
        var ended = false
        var failed = false
        var wake: HTTPWake?
        var room: CheckedContinuation<Void, Never>?
        var task: Task<Void, Never>?
        var closed = false
    }

    private let file: BucketFile
    private let range: ByteRange
    private let state = Mutex(State())
    /// Most bytes read ahead of the client.
    static let limit = 2 << 20

    init(file: BucketFile, range: ByteRange) {
        self.file = file
        self.range = range
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64, wake: HTTPWake) -> HTTPProduceResult {
        if position >= range.length { return .end }
        let (result, room, start) = state.withLock { s -> (HTTPProduceResult, CheckedContinuation<Void, Never>?, Bool) in
            let start = s.task == nil && !s.closed
            var n = 0
            while n < buffer.count, let chunk = s.chunks.first {
                let take = min(buffer.count - n, chunk.count - s.used)
                chunk.withUnsafeBytes { buffer.baseAddress!.advanced(by: n).copyMemory(from: $0.baseAddress! + s.used, byteCount: take) }
                n += take
                s.used += take
                if s.used == chunk.count { s.chunks.removeFirst(); s.used = 0 }
            }
            s.bytes -= n
            var room: CheckedContinuation<Void, Never>?
            if s.bytes < Self.limit { room = s.room; s.room = nil }
            if n > 0 { return (.bytes(n), room, start) }
            // A body that ends short of the range, or fails, ends the answer short.
            if s.failed || s.ended { return (.failed, room, start) }
            s.wake = wake
            return (.pending, room, start)
        }
        room?.resume()
        if start { begin() }
        return result
    }

    /// Starts the GET and the task that fills the buffer.
    private func begin() {
        let backend = file.backend, path = file.path, range = range, etag = file.item.etag
        let task = Task(executorPreference: backend.executor) { [self] in
            do {
                let response = try await backend.store.read(path, range: range, ifMatch: etag)
                guard response.status == 200 || response.status == 206 else { throw CancellationError() }
                for try await chunk in response.body {
                    await waitForRoom()
                    if Task.isCancelled { response.body.cancel(); return }
                    let wake = state.withLock { s -> HTTPWake? in
                        s.chunks.append(chunk)
                        s.bytes += chunk.count
                        defer { s.wake = nil }
                        return s.wake
                    }
                    wake?()
                }
                finish(failed: false)
            } catch {
                finish(failed: true)
            }
        }
        let closed = state.withLock { s -> Bool in
            if !s.closed { s.task = task }
            return s.closed
        }
        if closed { task.cancel() }
    }

    private func waitForRoom() async {
        await withCheckedContinuation { (room: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.bytes < Self.limit || s.closed { return true }
                s.room = room
                return false
            }
            if ready { room.resume() }
        }
    }

    private func finish(failed: Bool) {
        let wake = state.withLock { s -> HTTPWake? in
            s.ended = true
            s.failed = failed
            defer { s.wake = nil }
            return s.wake
        }
        wake?()
    }

    func close() {
        let (task, room) = state.withLock { s -> (Task<Void, Never>?, CheckedContinuation<Void, Never>?) in
            s.closed = true
            s.chunks = []
            s.bytes = 0
            defer { s.room = nil }
            return (s.task, s.room)
        }
        task?.cancel()
        room?.resume()
    }
}

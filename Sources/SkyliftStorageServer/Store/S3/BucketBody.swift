import SkyliftCore
import SkyliftHTTPClient
import SkyliftHTTPServer
import Synchronization

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
        /// The GET's body, to give spent chunks back to (their storage takes the next bytes).
        var source: HTTPResponseBody?
    }

    private let file: BucketFile
    private let range: ByteRange
    private let state = Mutex(State())
    /// Most bytes read ahead of the client.
    static let limit = 1 << 20

    init(file: BucketFile, range: ByteRange) {
        self.file = file
        self.range = range
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64, wake: HTTPWake) -> HTTPProduceResult {
        if position >= range.length { return .end }
        var spent: [[UInt8]] = []
        let (result, room, start, source) = state.withLock { s -> (HTTPProduceResult, CheckedContinuation<Void, Never>?, Bool, HTTPResponseBody?) in
            let start = s.task == nil && !s.closed
            var n = 0
            while n < buffer.count, !s.chunks.isEmpty {
                let used = s.used
                let take = s.chunks[0].withUnsafeBytes { chunk in
                    let take = min(buffer.count - n, chunk.count - used)
                    buffer.baseAddress!.advanced(by: n).copyMemory(from: chunk.baseAddress! + used, byteCount: take)
                    return take
                }
                n += take
                s.used += take
                if s.used == s.chunks[0].count { spent.append(s.chunks.removeFirst()); s.used = 0 }
            }
            s.bytes -= n
            var room: CheckedContinuation<Void, Never>?
            if s.bytes < Self.limit { room = s.room; s.room = nil }
            if n > 0 { return (.bytes(n), room, start, s.source) }
            // A body that ends short of the range, or fails, ends the answer short.
            if s.failed || s.ended { return (.failed, room, start, s.source) }
            s.wake = wake
            return (.pending, room, start, s.source)
        }
        while let chunk = spent.popLast() { source?.recycle(chunk) }
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
                state.withLock { $0.source = response.body }
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

import SkyliftHTTPServer
import Synchronization

/// Hands a request body from the event loop (which pushes chunks and must never wait) to an async consumer (a
/// write to the bucket), holding at most about `limit` bytes: past it the pusher is told to pause, and its wake
/// is called once the consumer has taken the buffer below the limit again, or has stopped taking anything
/// (``abandon()``): a paused connection is never left waiting for a consumer that is gone.
final class BodyChannel: Sendable {
    private struct State {
        var chunks: [[UInt8]] = []
        var first = 0
        var bytes = 0
        var ended = false
        var failure: (any Error)?
        var consumer: CheckedContinuation<[UInt8]?, any Error>?
        var wake: HTTPWake?
        /// The consumer stopped (its write ended, failed or not): chunks are dropped, nothing pauses.
        var abandoned = false
    }

    private let state = Mutex(State())
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Adds `chunk`; false when the buffer is now past the limit: then `wake` is called once it has drained.
    func push(_ chunk: [UInt8], wake: HTTPWake) -> Bool {
        let (consumer, more) = state.withLock { s -> (CheckedContinuation<[UInt8]?, any Error>?, Bool) in
            if s.ended || s.abandoned { return (nil, true) }
            if let waiting = s.consumer {
                s.consumer = nil
                return (waiting, true)
            }
            s.chunks.append(chunk)
            s.bytes += chunk.count
            if s.bytes < limit { return (nil, true) }
            s.wake = wake
            return (nil, false)
        }
        consumer?.resume(returning: chunk)
        return more
    }

    /// The consumer takes nothing more: what is buffered is dropped, and a paused pusher is woken (to be told).
    func abandon() {
        let wake = state.withLock { s -> HTTPWake? in
            s.abandoned = true
            s.chunks = []
            s.first = 0
            s.bytes = 0
            defer { s.wake = nil }
            return s.wake
        }
        wake?()
    }

    /// True once ``abandon()`` was called.
    var isAbandoned: Bool { state.withLock { $0.abandoned } }

    /// The body is complete: the consumer gets what is buffered, then the end.
    func finish() { end(nil) }

    /// The body will not complete: the consumer gets `error` (so nothing partial is stored).
    func fail(_ error: any Error) { end(error) }

    private func end(_ error: (any Error)?) {
        let (consumer, wake) = state.withLock { s -> (CheckedContinuation<[UInt8]?, any Error>?, HTTPWake?) in
            guard !s.ended else { return (nil, nil) }
            s.ended = true
            s.failure = error
            if error != nil { s.chunks = []; s.first = 0; s.bytes = 0 }
            defer { s.consumer = nil; s.wake = nil }
            return (s.chunks.count > s.first ? nil : s.consumer, s.wake)
        }
        if let error { consumer?.resume(throwing: error) } else { consumer?.resume(returning: nil) }
        wake?()
    }

    /// The next chunk, nil at the end; throws the failure the body ended with.
    func next() async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
            let (ready, wake) = state.withLock { s -> (Result<[UInt8]?, any Error>?, HTTPWake?) in
                if s.first < s.chunks.count {
                    let chunk = s.chunks[s.first]
                    s.first += 1
                    s.bytes -= chunk.count
                    if s.first == s.chunks.count { s.chunks = []; s.first = 0 }
                    var wake: HTTPWake?
                    if s.bytes < limit { wake = s.wake; s.wake = nil }
                    return (.success(chunk), wake)
                }
                if s.ended { return (s.failure.map { .failure($0) } ?? .success(nil), nil) }
                s.consumer = continuation
                return (nil, nil)
            }
            wake?()
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The chunks as an `AsyncSequence`, for a write that takes a body.
    var chunks: Chunks { Chunks(channel: self) }

    struct Chunks: AsyncSequence, Sendable {
        let channel: BodyChannel
        func makeAsyncIterator() -> Iterator { Iterator(channel: channel) }

        struct Iterator: AsyncIteratorProtocol {
            let channel: BodyChannel
            mutating func next() async throws -> [UInt8]? { try await channel.next() }
        }
    }
}

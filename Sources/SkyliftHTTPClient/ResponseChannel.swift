import Foundation
import SkyliftCore

/// Hands one response from a transport's thread to the async caller: the head once, then body chunks
/// through a bounded buffer.
///
/// The producer side (`deliverHead`, `push`, `finish`) runs on a thread the transport owns and may block:
/// `push` waits while the buffer is full, which is the backpressure. The consumer side (`head`, `next`) is
/// async and never blocks a thread. `cancel` may come from anywhere; it wakes both sides.
package final class ResponseChannel: @unchecked Sendable {
    // @unchecked: every stored var below is read and written only while holding `condition`.
    private let condition = NSCondition()
    private let capacity: Int
    private let url: URL

    private var head: (status: Int, headers: HTTPHeaders)?
    private var headWaiter: CheckedContinuation<(status: Int, headers: HTTPHeaders), any Error>?
    private var chunks: [[UInt8]] = []
    private var firstChunk = 0
    private var buffered = 0
    private var bodyWaiter: CheckedContinuation<[UInt8]?, any Error>?
    private var finished = false
    private var failure: HTTPClientError?
    private var cancelled = false
    private var cancelHandler: (@Sendable () -> Void)?
    /// Chunks the consumer gave back (``recycle(_:)``), emptied, for `push` to fill before allocating.
    private var spare: [[UInt8]] = []
    private static let maxSpare = 4

    /// Small writes are appended to the last buffered chunk up to this size, so the consumer sees few
    /// large chunks rather than one per socket read.
    private static let chunkSize = 512 * 1024
    /// Buffered bytes that wake a waiting consumer without waiting for `flush()`.
    private static let handOffSize = 256 * 1024

    /// - Parameter capacity: bytes the buffer may hold before `push` waits.
    package init(url: URL, capacity: Int) {
        self.url = url
        self.capacity = capacity
    }

    // MARK: producer side

    /// Runs `handler` once when the consumer cancels (immediately if it already has).
    package func onCancel(_ handler: @escaping @Sendable () -> Void) {
        condition.lock()
        if cancelled {
            condition.unlock()
            handler()
            return
        }
        cancelHandler = handler
        condition.unlock()
    }

    package var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    package func deliverHead(status: Int, headers: HTTPHeaders) {
        condition.lock()
        guard head == nil, !finished else {
            condition.unlock()
            return
        }
        head = (status, headers)
        let waiter = headWaiter
        headWaiter = nil
        condition.unlock()
        waiter?.resume(returning: (status, headers))
    }

    /// Queues `bytes`, waiting while the buffer is full. Returns false when the consumer has cancelled:
    /// the transport should abort the transfer.
    ///
    /// A waiting consumer is woken when `flush` is true or `handOffSize` bytes are buffered; otherwise the
    /// bytes wait for `flush()`. A transport that receives in bursts of small socket reads flushes at the end
    /// of each burst, so the consumer wakes once per burst instead of once per read.
    package func push(_ bytes: UnsafeRawBufferPointer, flush: Bool) -> Bool {
        condition.lock()
        while buffered >= capacity && !cancelled { condition.wait() }
        if cancelled {
            condition.unlock()
            return false
        }
        if chunks.count > firstChunk, chunks[chunks.count - 1].count + bytes.count <= Self.chunkSize {
            chunks[chunks.count - 1].append(contentsOf: bytes)
        } else {
            var chunk = spare.popLast() ?? []
            chunk.reserveCapacity(max(Self.chunkSize, bytes.count))
            chunk.append(contentsOf: bytes)
            chunks.append(chunk)
        }
        buffered += bytes.count
        let handOff = flush || buffered >= Self.handOffSize ? takeHandOff() : nil
        condition.unlock()
        handOff?.waiter.resume(returning: handOff?.chunk)
        return true
    }

    /// Keeps `chunk`'s storage for a later `push` (at most ``maxSpare`` of them).
    package func recycle(_ chunk: consuming [UInt8]) {
        var chunk = chunk
        guard chunk.capacity >= Self.chunkSize else { return }
        // Emptied here, outside the lock: when the caller kept no other reference this keeps the storage as it is.
        chunk.removeAll(keepingCapacity: true)
        condition.lock()
        if spare.count < Self.maxSpare && !finished { spare.append(chunk) }
        condition.unlock()
    }

    /// Wakes a waiting consumer with whatever is buffered.
    package func flush() {
        condition.lock()
        let handOff = takeHandOff()
        condition.unlock()
        handOff?.waiter.resume(returning: handOff?.chunk)
    }

    /// The waiting consumer and the chunk to give it, if both exist. Call with the lock held.
    private func takeHandOff() -> (waiter: CheckedContinuation<[UInt8]?, any Error>, chunk: [UInt8])? {
        guard let waiter = bodyWaiter, chunks.count > firstChunk else { return nil }
        bodyWaiter = nil
        return (waiter, popChunk())
    }

    /// Removes the oldest buffered chunk. Call with the lock held and a chunk buffered.
    private func popChunk() -> [UInt8] {
        let chunk = chunks[firstChunk]
        chunks[firstChunk] = []
        firstChunk += 1
        if firstChunk == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            firstChunk = 0
        }
        buffered -= chunk.count
        condition.broadcast()
        return chunk
    }

    /// Ends the response: `error` nil means the body is complete. A response that never got its head
    /// fails the caller of `head()` with `error` (or `transferFailed` when there is none).
    package func finish(error: HTTPClientError?) {
        condition.lock()
        guard !finished else {
            condition.unlock()
            return
        }
        finished = true
        failure = cancelled ? .cancelled : error
        let headWaiter = self.headWaiter
        self.headWaiter = nil
        let headError = failure ?? .transferFailed(url: url, reason: "connection ended before a response head")
        // A waiting consumer gets what is still buffered first, or else the end.
        let handOff = takeHandOff()
        let bodyWaiter = handOff == nil ? self.bodyWaiter : nil
        if handOff == nil { self.bodyWaiter = nil }
        let failure = self.failure
        condition.unlock()
        headWaiter?.resume(throwing: headError)
        handOff?.waiter.resume(returning: handOff?.chunk)
        if let failure { bodyWaiter?.resume(throwing: failure) } else { bodyWaiter?.resume(returning: nil) }
    }

    // MARK: consumer side

    /// Waits for the response head.
    package func head() async throws -> (status: Int, headers: HTTPHeaders) {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                condition.lock()
                if let head {
                    condition.unlock()
                    continuation.resume(returning: head)
                } else if cancelled {
                    condition.unlock()
                    continuation.resume(throwing: HTTPClientError.cancelled)
                } else if finished {
                    let error = failure ?? .transferFailed(url: url, reason: "connection ended before a response head")
                    condition.unlock()
                    continuation.resume(throwing: error)
                } else {
                    headWaiter = continuation
                    condition.unlock()
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The next body chunk, nil at the end of the body.
    package func next(isolation actor: isolated (any Actor)?) async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation(isolation: actor) { continuation in
            condition.lock()
            if cancelled {
                condition.unlock()
                continuation.resume(throwing: HTTPClientError.cancelled)
            } else if chunks.count > firstChunk {
                let chunk = popChunk()
                condition.unlock()
                continuation.resume(returning: chunk)
            } else if finished {
                let failure = self.failure
                condition.unlock()
                if let failure { continuation.resume(throwing: failure) } else { continuation.resume(returning: nil) }
            } else {
                bodyWaiter = continuation
                condition.unlock()
            }
        }
    }

    /// Aborts: drops buffered bytes, wakes a waiting producer (its `push` returns false) and fails
    /// waiting consumers with `cancelled`. Harmless after the response finished.
    package func cancel() {
        condition.lock()
        if cancelled || (finished && chunks.count == firstChunk) {
            // Nothing left to stop; a finished, drained body keeps reporting its end (or its error).
            condition.unlock()
            return
        }
        cancelled = true
        chunks.removeAll()
        firstChunk = 0
        buffered = 0
        let headWaiter = self.headWaiter
        let bodyWaiter = self.bodyWaiter
        self.headWaiter = nil
        self.bodyWaiter = nil
        let handler = cancelHandler
        cancelHandler = nil
        condition.broadcast()
        condition.unlock()
        headWaiter?.resume(throwing: HTTPClientError.cancelled)
        bodyWaiter?.resume(throwing: HTTPClientError.cancelled)
        handler?()
    }
}

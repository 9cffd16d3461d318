import Foundation
import SkyliftCore

/// Hands one response from a transport's thread to the async caller: the head once, then body chunks
/// through a bounded buffer.
///
/// The producer side (`deliverHead`, `push`, `finish`) runs on a thread the transport owns and may block:
/// `push` waits while the buffer is full, which is the backpressure. The consumer side (`head`, `next`) is
/// async and never blocks a thread. `cancel` may come from anywhere; it wakes both sides.
final class ResponseChannel: @unchecked Sendable {
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

    /// Chunks smaller than this are appended to the last buffered chunk instead of queued on their own,
    /// so a transport that delivers many small writes does not cost one hand-off each.
    private static let coalesceBelow = 64 * 1024
    private static let coalesceLimit = 256 * 1024

    /// - Parameter capacity: bytes the buffer may hold before `push` waits.
    init(url: URL, capacity: Int) {
        self.url = url
        self.capacity = capacity
    }

    // MARK: producer side

    /// Runs `handler` once when the consumer cancels (immediately if it already has).
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        condition.lock()
        if cancelled {
            condition.unlock()
            handler()
            return
        }
        cancelHandler = handler
        condition.unlock()
    }

    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    func deliverHead(status: Int, headers: HTTPHeaders) {
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
    func push(_ bytes: UnsafeRawBufferPointer) -> Bool {
        condition.lock()
        while buffered >= capacity && !cancelled { condition.wait() }
        if cancelled {
            condition.unlock()
            return false
        }
        if let waiter = bodyWaiter {
            bodyWaiter = nil
            condition.unlock()
            waiter.resume(returning: Array(bytes))
            return true
        }
        if chunks.count > firstChunk, chunks[chunks.count - 1].count < Self.coalesceBelow,
           chunks[chunks.count - 1].count + bytes.count <= Self.coalesceLimit {
            chunks[chunks.count - 1].append(contentsOf: bytes)
        } else {
            chunks.append(Array(bytes))
        }
        buffered += bytes.count
        condition.unlock()
        return true
    }

    /// Ends the response: `error` nil means the body is complete. A response that never got its head
    /// fails the caller of `head()` with `error` (or `transferFailed` when there is none).
    func finish(error: HTTPClientError?) {
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
        var bodyWaiter: CheckedContinuation<[UInt8]?, any Error>?
        if chunks.count == firstChunk {
            bodyWaiter = self.bodyWaiter
            self.bodyWaiter = nil
        }
        let failure = self.failure
        condition.unlock()
        headWaiter?.resume(throwing: headError)
        if let failure { bodyWaiter?.resume(throwing: failure) } else { bodyWaiter?.resume(returning: nil) }
    }

    // MARK: consumer side

    /// Waits for the response head.
    func head() async throws -> (status: Int, headers: HTTPHeaders) {
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
    func next() async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            if cancelled {
                condition.unlock()
                continuation.resume(throwing: HTTPClientError.cancelled)
            } else if chunks.count > firstChunk {
                let chunk = chunks[firstChunk]
                chunks[firstChunk] = []
                firstChunk += 1
                if firstChunk == chunks.count {
                    chunks.removeAll(keepingCapacity: true)
                    firstChunk = 0
                }
                buffered -= chunk.count
                condition.broadcast()
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
    func cancel() {
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

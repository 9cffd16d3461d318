import Foundation
import SkyliftCore
import Synchronization

/// What one ``RangeCursor/read(into:onReady:)`` produced.
public enum CursorStep: Sendable {
    /// This many bytes were copied (more than zero).
    case bytes(Int)
    /// Nothing yet: `onReady` will be called once when it is worth reading again.
    case pending
    /// Every byte of the range was delivered.
    case end
    /// The range cannot be completed: origin failure, resource changed, or cancelled.
    case failed(any Error)
}

/// A pull reader of one byte range, in order. Made by ``RangeResource/cursor(_:)``.
///
/// Safe to use from any thread, one read at a time. Closing it (or dropping it) tells the loader the reader
/// left, which stops downloads only it wanted.
public final class RangeCursor: Sendable {
    let resource: LoaderResource
    let id: Int
    /// The range this cursor delivers.
    public let range: ByteRange
    /// Set by the first close: the resource's lock, which every reader of the resource takes, is taken once.
    private let closed = Atomic<Bool>(false)

    init(resource: LoaderResource, id: Int, range: ByteRange) {
        self.resource = resource
        self.id = id
        self.range = range
    }

    deinit { close() }

    /// Copies the next bytes into `buffer`; when none are there yet, answers `.pending` and calls `onReady`
    /// exactly once later (bytes arrived, failure, cancellation).
    public func read(into buffer: UnsafeMutableRawBufferPointer, onReady: @escaping @Sendable () -> Void) -> CursorStep {
        resource.read(id, into: buffer, onReady: onReady)
    }

    /// Fails a pending or later read with `CancellationError` (and calls its `onReady`).
    public func cancel() { resource.cancelReader(id) }

    /// Leaves: downloads no other reader wants are stopped.
    public func close() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { resource.removeReader(id) }
    }
}

/// The bytes of a range as an `AsyncSequence` of chunks, each delivered once the cache holds it.
public struct RangeBytes: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    let resource: RangeResource
    let range: ByteRange
    let chunkSize: Int

    public func makeAsyncIterator() -> Iterator {
        Iterator(cursor: resource.cursor(range), chunkSize: Swift.max(1, chunkSize))
    }

    public struct Iterator: AsyncIteratorProtocol {
        let cursor: RangeCursor
        let chunkSize: Int

        public mutating func next() async throws -> [UInt8]? {
            let cursor = self.cursor, size = self.chunkSize
            return try await withTaskCancellationHandler {
                while true {
                    var chunk = [UInt8](repeating: 0, count: size)
                    let step = await withCheckedContinuation { (continuation: CheckedContinuation<CursorStep, Never>) in
                        let now = chunk.withUnsafeMutableBytes { buffer in
                            cursor.read(into: buffer) { continuation.resume(returning: .pending) }
                        }
                        if case .pending = now { return }
                        continuation.resume(returning: now)
                    }
                    switch step {
                    case let .bytes(n):
                        chunk.removeLast(chunk.count - n)
                        return chunk
                    case .pending: continue
                    case .end:
                        cursor.close()
                        return nil
                    case let .failed(error):
                        cursor.close()
                        throw error
                    }
                }
            } onCancel: {
                cursor.cancel()
            }
        }
    }
}

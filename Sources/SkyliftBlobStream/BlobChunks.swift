import Foundation
import SkyliftSystem
import Synchronization

/// A source's bytes as an `AsyncSequence` of chunks, read ahead by at most `bufferedChunks` chunks.
///
/// The source is opened on the first `next()` and closed when the sequence ends, fails or is dropped. Reads
/// run on a one-thread executor of the sequence's own, `skylift-blobread` (never on the Swift concurrency
/// pool; the thread ends two seconds after the last read), with the same re-open and
/// version checks as ``BlobInputStream``. Iterate it once.
///
/// ```swift
/// for try await chunk in BlobChunks(source: FileSource(path: "/srv/a.mov")) { try await upload(chunk) }
/// ```
public struct BlobChunks: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    public let source: any BlobSource
    /// First byte delivered.
    public var offset: Int64
    /// Bytes delivered at most; nil for all to the end.
    public var length: Int64?
    /// Bytes per chunk (the last may be shorter).
    public var chunkSize: Int
    /// Chunks read ahead of the consumer at most.
    public var bufferedChunks: Int

    public init(source: any BlobSource, offset: Int64 = 0, length: Int64? = nil,
                chunkSize: Int = BlobInputStream.defaultBlockSize, bufferedChunks: Int = 4) {
        self.source = source
        self.offset = offset
        self.length = length
        self.chunkSize = Swift.max(1, chunkSize)
        self.bufferedChunks = Swift.max(1, bufferedChunks)
    }

    public func makeAsyncIterator() -> Iterator { Iterator(pump: ChunkPump(self)) }

    public struct Iterator: AsyncIteratorProtocol {
        let pump: ChunkPump
        public mutating func next() async throws -> [UInt8]? { try await pump.next() }
    }
}

/// Reads chunks on its own serial executor into a bounded buffer and hands them to one consumer.
final class ChunkPump: Sendable {
    private let spec: BlobChunks
    private let reader: BlobReader
    /// Serial: one read at a time, in order, and the close after the last of them.
    private let queue = BlockingExecutor(name: "skylift-blobread", threads: 1)
    private let state = Mutex(State())

    private struct State {
        var opened = false
        var nextOffset: Int64 = 0
        var end: Int64 = 0
        var buffered: [[UInt8]] = []
        var inFlight = false
        var failure: (any Error)?
        var cancelled = false
        var closed = false
        var waiter: CheckedContinuation<[UInt8]?, any Error>?
    }

    init(_ spec: BlobChunks) {
        self.spec = spec
        self.reader = BlobReader(source: spec.source)
    }

    deinit {
        if !state.withLock({ $0.closed }) { reader.close() }
    }

    func next() async throws -> [UInt8]? {
        try Task.checkCancellation()
        if !state.withLock({ $0.opened }) { try await open() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<[UInt8]?, any Error>) in
                // Decided under the lock, resumed after it: a resumed task may run at once on this thread.
                let now = state.withLock { s -> Result<[UInt8]?, any Error>? in
                    if s.cancelled { return .failure(CancellationError()) }
                    if !s.buffered.isEmpty {
                        let chunk = s.buffered.removeFirst()
                        refill(&s)
                        return .success(chunk)
                    }
                    if let failure = s.failure { return .failure(failure) }
                    if s.nextOffset >= s.end, !s.inFlight {
                        finish(&s)
                        return .success(nil)
                    }
                    s.waiter = c
                    refill(&s)
                    return nil
                }
                if let now { c.resume(with: now) }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<[UInt8]?, any Error>? in
                s.cancelled = true
                defer { s.waiter = nil }
                finish(&s)
                return s.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func open() async throws {
        let info = try await spec.source.open()
        reader.pin(info)
        guard spec.offset >= 0, spec.offset <= info.length else {
            reader.close()
            state.withLock { $0.closed = true }
            throw BlobStreamError.offsetOutOfRange(name: spec.source.name, offset: spec.offset, length: info.length)
        }
        let end = spec.length.map { min(info.length, spec.offset + max(0, $0)) } ?? info.length
        state.withLock { s in
            s.opened = true
            s.nextOffset = spec.offset
            s.end = end
        }
    }

    /// Starts the next read if the buffer has room.
    private func refill(_ s: inout State) {
        guard !s.inFlight, !s.cancelled, !s.closed, s.failure == nil, s.nextOffset < s.end,
              s.buffered.count < spec.bufferedChunks else { return }
        let offset = s.nextOffset
        let count = Int(min(Int64(spec.chunkSize), s.end - offset))
        s.nextOffset += Int64(count)
        s.inFlight = true
        queue.execute { [self] in
            let result = Result {
                try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                    initialized = try reader.readBlock(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
                }
            }
            let handOff = state.withLock { s -> (CheckedContinuation<[UInt8]?, any Error>, Result<[UInt8]?, any Error>)? in
                s.inFlight = false
                let waiter = s.waiter
                s.waiter = nil
                switch result {
                case let .success(chunk):
                    if waiter == nil { s.buffered.append(chunk) }
                    refill(&s)
                    if s.nextOffset >= s.end, !s.inFlight { finish(&s) }
                    return waiter.map { ($0, .success(chunk)) }
                case let .failure(error):
                    s.failure = error
                    finish(&s)
                    return waiter.map { ($0, .failure(error)) }
                }
            }
            // Resumed outside the lock (see next()).
            if let (waiter, outcome) = handOff { waiter.resume(with: outcome) }
        }
    }

    /// Closes the source once nothing more will be read from it; runs after any read still queued.
    private func finish(_ s: inout State) {
        guard !s.closed else { return }
        s.closed = true
        queue.execute { [reader] in reader.close() }
    }
}

import Foundation

/// Carries a write's body from the task reading it to the transport thread sending it to the bucket (through
/// ``PartStream``), so a part goes up while it arrives instead of being gathered in memory first. At most about
/// ``limit`` bytes wait between the two: past it the reading task waits for room, and the client with it.
///
/// The sending side blocks (a transport thread reading a request body); the reading side is async and never
/// blocks a thread. Either side may stop the other: ``finish(failure:)`` ends the bytes, ``stop()`` says no more
/// are wanted, and a waiting side on the other end wakes at once.
///
/// `@unchecked Sendable`: every stored var is read and written only with `condition` locked.
final class PartPump: @unchecked Sendable {
    private let condition = NSCondition()
    private var chunks: [[UInt8]] = []
    private var first = 0
    /// Bytes of `chunks[first]` already taken.
    private var used = 0
    private var waiting = 0
    private var ended = false
    private var failure: (any Error)?
    private var stopped = false
    private var room: CheckedContinuation<Void, Never>?
    /// Most bytes held between the reading task and the sender.
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Hands `chunk` on once fewer than ``limit`` bytes wait; false when the sender stopped (the chunk is dropped).
    func push(_ chunk: [UInt8]) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if hasRoom(else: continuation) { continuation.resume() }
        }
        return append(chunk)
    }

    /// True when a chunk may be added now; else `continuation` is kept, to be resumed once there is room.
    private func hasRoom(else continuation: CheckedContinuation<Void, Never>) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if stopped || waiting < limit { return true }
        room = continuation
        return false
    }

    private func append(_ chunk: [UInt8]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if stopped { return false }
        if !chunk.isEmpty {
            chunks.append(chunk)
            waiting += chunk.count
            condition.signal()
        }
        return true
    }

    /// No more bytes come: with `failure`, the sender's next wait throws it instead of ending.
    func finish(failure: (any Error)? = nil) {
        condition.lock()
        ended = true
        self.failure = failure
        condition.broadcast()
        condition.unlock()
    }

    /// The sender wants no more bytes (it finished or failed): what waits is dropped and the reading task woken.
    func stop() {
        condition.lock()
        stopped = true
        chunks = []
        first = 0
        waiting = 0
        let room = room
        self.room = nil
        condition.broadcast()
        condition.unlock()
        room?.resume()
    }

    /// Copies the next bytes into `buffer`, blocking until some are there; 0 once the body ended (or the pump was
    /// stopped), and the body's failure, if it failed, is thrown instead.
    func take(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        condition.lock()
        while first == chunks.count && !ended && !stopped { condition.wait() }
        guard first < chunks.count, let base = buffer.baseAddress else {
            let failure = failure
            condition.unlock()
            if let failure { throw failure }
            return 0
        }
        let chunk = chunks[first]
        let n = min(buffer.count, chunk.count - used)
        chunk.withUnsafeBytes { base.copyMemory(from: $0.baseAddress! + used, byteCount: n) }
        used += n
        waiting -= n
        if used == chunk.count {
            chunks[first] = []
            first += 1
            used = 0
            if first == chunks.count { chunks.removeAll(keepingCapacity: true); first = 0 }
        }
        var wake: CheckedContinuation<Void, Never>?
        if waiting < limit { wake = room; room = nil }
        condition.unlock()
        wake?.resume()
        return n
    }
}

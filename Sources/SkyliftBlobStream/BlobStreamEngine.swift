import Foundation
import Synchronization

/// The state machine behind ``BlobInputStream``: opening, block reads and read-ahead, offsets, events.
///
/// Kept apart from the `InputStream` subclass because Foundation's streams are not `Sendable`, while the
/// engine is shared with the fill queue and the event queue.
final class BlobStreamEngine: @unchecked Sendable {
    // @unchecked Sendable: every mutable field lives in `state` (a Mutex); the block buffers are written
    // only by the one fill that owns them at a time (see `State.filling`) and read under the lock.

    let source: any BlobSource
    let blockSize: Int

    let reader: BlobReader
    /// One block buffer in synchronous mode; two in asynchronous mode (one read from, one filled ahead).
    let storage: [UnsafeMutableRawPointer]
    let fillQueue: DispatchQueue?
    let eventQueue: DispatchQueue?
    let state = Mutex(State())

    struct Block {
        var index: Int
        var start: Int64
        var count: Int
        var end: Int64 { start + Int64(count) }
        func covers(_ position: Int64) -> Bool { position >= start && position < end }
    }

    struct State {
        var status: Stream.Status = .notOpen
        var error: (any Error)?
        var position: Int64 = 0
        var length: Int64 = 0
        /// The block reads are served from.
        var current: Block?
        /// Asynchronous mode: a block read ahead, not yet current.
        var spare: Block?
        /// Asynchronous mode: a fill is running and owns the buffer `current` does not use.
        var filling = false
        /// Threads blocked in `read` until a fill or the open completes.
        var waiters: [DispatchSemaphore] = []
        var targets = EventTargets()
        var events: [Stream.Event] = []
        var delivering = false

        mutating func wakeWaiters() {
            for w in waiters { w.signal() }
            waiters.removeAll()
        }
    }

    init(source: any BlobSource, mode: BlobInputStream.Mode, blockSize: Int) {
        self.source = source
        self.blockSize = max(1, blockSize)
        self.reader = BlobReader(source: source)
        switch mode {
        case .synchronous:
            storage = [.allocate(byteCount: self.blockSize, alignment: 16)]
            fillQueue = nil
            eventQueue = nil
        case let .asynchronous(events):
            let size = self.blockSize
            storage = (0 ..< 2).map { _ in .allocate(byteCount: size, alignment: 16) }
            fillQueue = DispatchQueue(label: "BlobInputStream.fill")
            eventQueue = events
        }
    }

    deinit {
        reader.close()
        for b in storage { b.deallocate() }
    }

    // MARK: Stream

    func open() {
        let proceed = state.withLock { s -> Bool in
            guard s.status == .notOpen else { return false }
            s.status = .opening
            return true
        }
        guard proceed else { return }
        if fillQueue == nil {
            didOpen(Result { try reader.openBlocking() })
        } else {
            source.open { [self] result in
                if case let .success(info) = result { reader.pin(info) }
                didOpen(result)
            }
        }
    }

    private func didOpen(_ result: Result<BlobInfo, any Error>) {
        let stillWanted = state.withLock { s -> Bool in
            guard s.status == .opening else { return false }
            defer { s.wakeWaiters() }
            switch result {
            case let .failure(error):
                fail(&s, error)
            case let .success(info):
                s.length = info.length
                guard s.position <= info.length else {
                    fail(&s, BlobStreamError.offsetOutOfRange(name: source.name, offset: s.position, length: info.length))
                    return true
                }
                s.status = .open
                post(&s, .openCompleted)
                if fillQueue != nil { scheduleFill(&s) } else { postAvailability(&s) }
            }
            return true
        }
        // Closed while opening: the open that just finished must not leak.
        if !stillWanted { reader.close() }
        deliverEvents()
    }

    func close() {
        let wasOpen = state.withLock { s -> Bool in
            guard s.status != .closed else { return false }
            s.status = .closed
            s.events.removeAll()
            s.wakeWaiters()
            return true
        }
        guard wasOpen else { return }
        // A fill may be reading right now; closing the source under it would let a recycled descriptor be
        // read, so the close waits its turn behind the fill.
        if let fillQueue { fillQueue.sync { reader.close() } } else { reader.close() }
    }

    var status: Stream.Status { state.withLock { $0.status } }

    var error: (any Error)? { state.withLock { $0.error } }

    var hasBytesAvailable: Bool {
        state.withLock { s in
            switch s.status {
            case .open, .reading: s.position < s.length
            // A read now waits for the open, or returns -1 with the error. Answering false would make
            // URLSession end the body there, short and without a word.
            case .opening, .error: true
            default: false
            }
        }
    }

    func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard len > 0 else { return 0 }
        // Synchronous mode fills the whole request when the content allows: fewer, fuller reads matter to
        // callers that pay per call (URLSession copies every chunk it gets). Bytes already copied are
        // returned even if a later block fails; the error then surfaces on the next call.
        var delivered = 0
        func finish(_ n: Int) -> Int {
            deliverEvents()
            return delivered > 0 && n <= 0 ? delivered : n
        }
        while true {
            let step = state.withLock { s in nextStep(&s, maxLength: len - delivered) }
            switch step {
            case let .copy(index, from, count):
                // `current` changes only on this consumer's own calls, so its bytes are stable here.
                UnsafeMutableRawPointer(buffer + delivered).copyMemory(from: storage[index] + from, byteCount: count)
                delivered += count
                if fillQueue != nil || delivered == len { return finish(delivered) }
            case let .done(n):
                return finish(n)
            case let .wait(semaphore):
                semaphore.wait()
            case let .fill(offset):
                guard fillSynchronously(at: offset) else { return finish(-1) }
            case let .direct(offset, count):
                let n = readDirect(into: UnsafeMutableRawBufferPointer(start: buffer + delivered, count: count), at: offset)
                if n < 0 { return finish(-1) }
                delivered += n
                return finish(delivered)
            case let .waitForOpen(semaphore):
                // The open completion may be queued behind this very call: fail rather than wait forever.
                if let queue = source.openCompletionQueue, QueueProbe.isCurrent(queue) {
                    state.withLock { s in
                        if s.status == .opening { fail(&s, BlobStreamError.synchronousOpenWouldDeadlock(name: source.name)) }
                    }
                    return finish(-1)
                }
                semaphore.wait()
            }
        }
    }

    /// Synchronous mode: reads the block at `offset` into the one buffer; false (the stream failed) on error.
    private func fillSynchronously(at offset: Int64) -> Bool {
        do {
            let n = try reader.readBlock(into: block(0), at: offset)
            state.withLock { s in
                if s.status == .reading { s.status = .open }
                s.current = Block(index: 0, start: offset, count: n)
            }
            return true
        } catch {
            failRead(error)
            return false
        }
    }

    /// Synchronous mode: reads at `offset` straight into the caller's buffer; the count, or -1 (the stream
    /// failed) on error.
    private func readDirect(into target: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        do {
            let n = try reader.readBlock(into: target, at: offset)
            state.withLock { s in
                guard s.status == .reading, s.position == offset else { return }
                s.position += Int64(n)
                s.status = .open
                if s.position >= s.length { reachEnd(&s) } else { postAvailability(&s) }
            }
            return n
        } catch {
            failRead(error)
            return -1
        }
    }

    private func failRead(_ error: any Error) {
        state.withLock { s in if s.status == .reading || s.status == .open { fail(&s, error) } }
    }

    /// Queues `hasBytesAvailable` when a read would return bytes without waiting.
    func postAvailability(_ s: inout State) {
        guard s.status == .open, s.position < s.length else { return }
        if fillQueue != nil {
            let ready = (s.current?.covers(s.position) ?? false) || (s.spare?.covers(s.position) ?? false)
            guard ready else { return }
        }
        post(&s, .hasBytesAvailable)
    }

    func fail(_ s: inout State, _ error: any Error) {
        s.status = .error
        s.error = error
        s.wakeWaiters()
        post(&s, .errorOccurred)
    }
}

// Buffer access for `getBuffer`, seeking and stream properties.
extension BlobStreamEngine {
    /// Consumes the rest of the current block; returns where it lies, or nil when nothing is buffered.
    func takeBuffered() -> (index: Int, from: Int, count: Int)? {
        let taken = state.withLock { s -> (index: Int, from: Int, count: Int)? in
            guard s.status == .open, let current = s.current, current.covers(s.position) else { return nil }
            let n = Int(current.end - s.position)
            let from = Int(s.position - current.start)
            s.position += Int64(n)
            if s.position >= s.length { reachEnd(&s) } else { afterConsuming(&s) }
            return (current.index, from, n)
        }
        deliverEvents()
        return taken
    }

    func pointer(index: Int, from: Int) -> UnsafeMutablePointer<UInt8> {
        (storage[index] + from).assumingMemoryBound(to: UInt8.self)
    }

    /// Moves the next read to `offset`. Before `open()` any offset is accepted (checked against the length
    /// when the source opens); once open it must lie within the content.
    func seek(to offset: Int64) -> Bool {
        guard offset >= 0 else { return false }
        let ok = state.withLock { s -> Bool in
            switch s.status {
            case .notOpen, .opening:
                s.position = offset
                return true
            case .open, .atEnd:
                guard offset <= s.length else { return false }
                s.position = offset
                s.status = .open
                if offset >= s.length { reachEnd(&s) } else {
                    scheduleFill(&s)
                    postAvailability(&s)
                }
                return true
            default:
                return false
            }
        }
        deliverEvents()
        return ok
    }

    var offset: Int64 { state.withLock { $0.position } }

    func property(forKey key: Stream.PropertyKey) -> NSNumber? {
        key == .fileCurrentOffsetKey ? NSNumber(value: offset) : nil
    }

    func setProperty(_ property: Any?, forKey key: Stream.PropertyKey) -> Bool {
        guard key == .fileCurrentOffsetKey, let number = property as? NSNumber else { return false }
        return seek(to: number.int64Value)
    }
}

// Read-ahead (asynchronous mode): the block after the one being read is filled on the fill queue.
extension BlobStreamEngine {
    /// Starts reading the next block the consumer will want into the buffer `current` does not use.
    func scheduleFill(_ s: inout State) {
        guard let fillQueue, !s.filling, s.status == .open || s.status == .reading else { return }
        let target: Int64
        if let current = s.current, current.covers(s.position) { target = current.end } else { target = s.position }
        guard target < s.length, !(s.spare?.covers(target) ?? false) else { return }
        let index = s.current.map { 1 - $0.index } ?? 0
        s.filling = true
        s.spare = nil
        fillQueue.async { [self] in
            let result = Result { try reader.readBlock(into: block(index), at: target) }
            state.withLock { s in
                s.filling = false
                guard s.status == .open || s.status == .reading else { return }
                switch result {
                case let .success(n):
                    s.spare = Block(index: index, start: target, count: n)
                    if s.status == .open, !(s.current?.covers(s.position) ?? false) { postAvailability(&s) }
                    s.wakeWaiters()
                    scheduleFill(&s)
                case let .failure(error):
                    fail(&s, error)
                }
            }
            deliverEvents()
        }
    }

    func block(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: storage[index], count: blockSize)
    }
}

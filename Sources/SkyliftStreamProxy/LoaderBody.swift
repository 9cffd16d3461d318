import Dispatch
import Foundation
import SkyliftHTTPServer
import SkyliftRangeCache
import SkyliftCore
import Synchronization

/// A response body fed from the loader: literal pieces (multipart headers) and byte ranges of a resource.
///
/// `produce` runs on the server's event loop and never blocks: while the loader waits for the origin it answers
/// `.pending` and the cursor's ready callback wakes the connection. A stall timer fails the response after
/// `stallTimeout` seconds without a byte, and stopping the proxy wakes and fails it, so none waits forever.
final class LoaderBody: HTTPEventBodyProducer, Sendable {
    enum Piece: Sendable {
        case text([UInt8])
        case range(ByteRange)

        var length: Int64 {
            switch self {
            case let .text(t): Int64(t.count)
            case let .range(r): r.length
            }
        }
    }

    private struct State {
        var index = 0
        var offset = 0
        var cursor: RangeCursor?
        var stopped = false
        var stalled = false
        /// The wake of the last `.pending` answer, for the stall timer and `stop`.
        var wake: HTTPWake?
        /// Counts waits; a stall timer acts only if no byte came since it was armed.
        var waits: UInt64 = 0
        var waiting = false
        /// Bytes ``readNow(limit:)`` took before the body had to wait: sent first.
        var prefix: [UInt8] = []
        var prefixSent = 0
    }

    let resource: RangeResource
    let pieces: [Piece]
    let path: String
    private let stallTimeout: Double
    private let logger: Logger
    private let responses: ActiveResponses
    private let state = Mutex(State())

    init(resource: RangeResource, pieces: [Piece], path: String, stallTimeout: Double, responses: ActiveResponses,
         logger: Logger) {
        self.resource = resource
        self.pieces = pieces
        self.path = path
        self.stallTimeout = stallTimeout
        self.responses = responses
        self.logger = logger
    }

    var length: Int64 { pieces.reduce(0) { $0 + $1.length } }

    private enum Next { case done, failed, stalled, text([UInt8], Int), read(RangeCursor) }

    private func next() -> Next {
        state.withLock { s -> Next in
            if s.stalled { return .stalled }
            if s.stopped { return .failed }
            guard s.index < pieces.count else { return .done }
            switch pieces[s.index] {
            case let .text(bytes): return .text(bytes, s.offset)
            case let .range(range):
                if s.cursor == nil { s.cursor = resource.cursor(range) }
                return .read(s.cursor!)
            }
        }
    }

    /// All of a body of at most `limit` bytes when every byte is at hand now (a warm cache): the answer then goes
    /// out with its head in one write. Nil otherwise; what was read is kept and sent first by `produce`.
    func readNow(limit: Int) -> [UInt8]? {
        guard length > 0, length <= Int64(limit) else { return nil }
        let count = Int(length)
        var filled = 0
        var complete = false
        let later = HTTPWake {}
        // Uninitialized: every byte handed out is one the cache wrote (zeroing first was 3% of a small range).
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { all, initialized in
            let raw = UnsafeMutableRawBufferPointer(all)
            reading: while filled < count {
                switch produce(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: Int64(filled), wake: later) {
                case let .bytes(n) where n > 0: filled += n
                case .bytes, .end, .failed, .pending:
                    // What was read is sent first by `produce`, whatever the stream does next.
                    let taken = Array(UnsafeRawBufferPointer(rebasing: raw[..<filled]))
                    state.withLock { $0.prefix = taken; $0.prefixSent = 0 }
                    break reading
                }
            }
            complete = filled == count
            initialized = filled
        }
        return complete ? bytes : nil
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64, wake: HTTPWake) -> HTTPProduceResult {
        if let n = sendPrefix(into: buffer) { return .bytes(n) }
        while true {
            switch next() {
            case .done: return .end
            case .failed: return .failed
            case .stalled:
                logger.warning("proxy: \(path) got no bytes for \(Int(stallTimeout))s; failing the response")
                return .failed
            case let .text(bytes, offset):
                let n = min(buffer.count, bytes.count - offset)
                bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
                state.withLock { s in
                    s.offset += n
                    if s.offset == bytes.count { s.index += 1; s.offset = 0 }
                }
                if n > 0 { return .bytes(n) }
            case let .read(cursor):
                switch cursor.read(into: buffer, onReady: { wake() }) {
                case let .bytes(n):
                    state.withLock { $0.waiting = false }
                    return .bytes(n)
                case .end:
                    cursor.close()
                    state.withLock { s in s.index += 1; s.cursor = nil }
                case let .failed(error):
                    if !(error is CancellationError) { logger.warning("proxy: \(path) failed mid-response: \(error)") }
                    return .failed
                case .pending:
                    armStallTimer(wake)
                    return .pending
                }
            }
        }
    }

    /// Copies out what ``readNow(limit:)`` left; nil once it is all sent.
    private func sendPrefix(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        state.withLock { s -> Int? in
            guard s.prefixSent < s.prefix.count else { return nil }
            let n = min(buffer.count, s.prefix.count - s.prefixSent)
            let from = s.prefixSent
            s.prefix.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + from, byteCount: n) }
            s.prefixSent += n
            return n
        }
    }

    /// Starts the stall clock at the first wait after a byte; a later wait keeps the clock running.
    private func armStallTimer(_ wake: HTTPWake) {
        let armed = state.withLock { s -> UInt64? in
            s.wake = wake
            guard !s.waiting else { return nil }
            s.waiting = true
            s.waits &+= 1
            return s.waits
        }
        guard let armed else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + stallTimeout) { [weak self] in self?.stallIfStill(armed) }
    }

    private func stallIfStill(_ armed: UInt64) {
        let stalled = state.withLock { s -> (RangeCursor?, HTTPWake?)? in
            guard s.waiting, s.waits == armed, !s.stopped else { return nil }
            s.stalled = true
            return (s.cursor, s.wake)
        }
        guard let stalled else { return }
        stalled.0?.cancel()
        stalled.1?()
    }

    /// Wakes a waiting response and makes it fail: the proxy is stopping.
    func stop() {
        let (cursor, wake) = state.withLock { s in
            s.stopped = true
            return (s.cursor, s.wake)
        }
        cursor?.cancel()
        wake?()
    }

    func close() {
        let cursor = state.withLock { s in
            defer { s.cursor = nil; s.wake = nil }
            return s.cursor
        }
        cursor?.close()
        responses.remove(self)
    }
}

import Dispatch
import Foundation
import SkyliftHTTPServer
import SkyliftRangeCache
import SkyliftCore
import Synchronization

/// A response body fed from the loader: literal pieces (multipart headers) and byte ranges of a resource.
///
/// `produce` runs on the connection's own thread and blocks while the loader waits for the origin. It wakes
/// when bytes arrive, when the proxy stops, or after the stall timeout, so it never sleeps forever.
final class LoaderBody: HTTPBodyProducer, Sendable {
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
    }

    let resource: RangeResource
    let pieces: [Piece]
    let path: String
    private let stallTimeout: Double
    private let logger: Logger
    private let responses: ActiveResponses
    private let wake = DispatchSemaphore(value: 0)
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

    func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult {
        var waitingSince: DispatchTime?
        while true {
            enum Next { case done, failed, text([UInt8], Int), read(RangeCursor) }
            let next = state.withLock { s -> Next in
                if s.stopped { return .failed }
                guard s.index < pieces.count else { return .done }
                switch pieces[s.index] {
                case let .text(bytes): return .text(bytes, s.offset)
                case let .range(range):
                    if s.cursor == nil { s.cursor = resource.cursor(range) }
                    return .read(s.cursor!)
                }
            }
            switch next {
            case .done: return .end
            case .failed: return .failed
            case let .text(bytes, offset):
                let n = min(buffer.count, bytes.count - offset)
                bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
                state.withLock { s in
                    s.offset += n
                    if s.offset == bytes.count { s.index += 1; s.offset = 0 }
                }
                if n > 0 { return .bytes(n) }
            case let .read(cursor):
                switch cursor.read(into: buffer, onReady: { [wake] in wake.signal() }) {
                case let .bytes(n): return .bytes(n)
                case .end:
                    cursor.close()
                    state.withLock { s in s.index += 1; s.cursor = nil }
                case let .failed(error):
                    if !(error is CancellationError) { logger.warning("proxy: \(path) failed mid-response: \(error)") }
                    return .failed
                case .pending:
                    let started = waitingSince ?? .now()
                    waitingSince = started
                    while wake.wait(timeout: .now() + 0.25) == .timedOut {
                        if state.withLock({ $0.stopped }) { return .failed }
                        if Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 > stallTimeout {
                            logger.warning("proxy: \(path) got no bytes for \(Int(stallTimeout))s; failing the response")
                            cursor.cancel()
                            return .failed
                        }
                    }
                }
            }
        }
    }

    /// Wakes a blocked `produce` and makes it fail: the proxy is stopping.
    func stop() {
        let cursor = state.withLock { s in
            s.stopped = true
            return s.cursor
        }
        cursor?.cancel()
        wake.signal()
    }

    func close() {
        let cursor = state.withLock { s in
            defer { s.cursor = nil }
            return s.cursor
        }
        cursor?.close()
        responses.remove(self)
    }
}

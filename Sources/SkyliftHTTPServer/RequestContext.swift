import Dispatch
import Synchronization

/// State of one request, from its head to the completion callback.
///
/// `@unchecked Sendable`: it is touched by its connection's event loop, and by a work thread only while the
/// connection is suspended for that work (``Suspensions/offload(_:_:)``); libmicrohttpd's resume takes a lock
/// the loop takes again before calling back, so each side sees the other's writes and they never overlap.
final class RequestContext: @unchecked Sendable {
    let request: HTTPRequest
    let slot: ConnectionSlot?
    let started = DispatchTime.now()
    var receiver: (any HTTPBodyReceiver)? {
        didSet { paced = receiver as? any HTTPPacedBodyReceiver }
    }
    /// The receiver again when it can pause the connection; cast once, not for every chunk.
    private(set) var paced: (any HTTPPacedBodyReceiver)?
    /// Response the handler chose from the head, queued once the (small) body has been read and dropped.
    var pending: HTTPResponse?
    /// Response a receiver chose before the body ended (early rejection): the rest of the body is dropped.
    var early: HTTPResponse?
    /// A work thread is deciding the head or finishing the body; the connection is suspended meanwhile.
    /// Atomic: libmicrohttpd may look in once more between the suspension and its taking hold.
    let working = Atomic<Bool>(false)
    /// What an offloaded head decided, applied by the loop on the next call.
    var decided: HTTPHeadDecision?
    /// What an offloaded `finish` answered, queued by the loop on the next call.
    var answer: HTTPResponse?
    var finished = false
    /// An early answer was written to the socket; what still arrives is dropped until the connection closes.
    var answered = false
    /// When the early answer was written (uptime nanoseconds).
    var answeredAt: UInt64 = 0
    var dropped: Int64 = 0
    var received: Int64 = 0
    var status = 0
    var sent: Int64 = 0

    /// The request announced a body: it reads under the body timeout, and the keep-alive timeout comes back after.
    let hasBody: Bool

    init(request: HTTPRequest, slot: ConnectionSlot?) {
        self.request = request
        self.slot = slot
        hasBody = request.headers.contains("Transfer-Encoding") || (request.contentLength ?? 0) > 0
    }
}

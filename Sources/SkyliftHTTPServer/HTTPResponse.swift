import Dispatch

/// A response to queue: status, header fields and a body source.
///
/// `Content-Length` is computed by the server from the body; a `Content-Length` header set here is ignored.
public struct HTTPResponse {
    public enum Body {
        /// No body (Content-Length: 0).
        case empty
        /// Bytes held in memory; for small bodies (XML, errors).
        case bytes([UInt8])
        /// `length` bytes of an open file from `offset`, sent by the kernel (sendfile) where possible.
        /// The server takes ownership of the descriptor and closes it.
        case file(descriptor: Int32, offset: Int64, length: Int64)
        /// Bytes produced on demand; `length` nil sends chunked transfer encoding.
        case stream(length: Int64?, producer: any HTTPBodyProducer)
    }

    public var status: Int
    public var headers: HTTPHeaders
    public var body: Body
    /// Where the server may keep what it makes of this response and send it again: set on an answer that is
    /// repeated byte for byte with a `.bytes` body (see ``ReusableResponse``); nil builds it for this request only.
    public var reuse: ReusableResponse?

    public init(status: Int, headers: HTTPHeaders = [:], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A small text body, with `Content-Type: text/plain`.
    public static func text(_ status: Int, _ text: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var h = headers
        if !h.contains("Content-Type") { h.add("Content-Type", "text/plain; charset=utf-8") }
        return HTTPResponse(status: status, headers: h, body: .bytes(Array((text + "\n").utf8)))
    }

    /// Bytes the body will carry, when known up front.
    public var bodyLength: Int64? {
        switch body {
        case .empty: 0
        case let .bytes(b): Int64(b.count)
        case let .file(_, _, length): length
        case let .stream(length, _): length
        }
    }
}

/// What a producer hands back for one read.
public enum HTTPProduceResult {
    /// This many bytes were written to the buffer (more than zero).
    case bytes(Int)
    /// The body is complete.
    case end
    /// The body cannot be completed; the connection is closed so the client sees a short, failed transfer.
    case failed
    /// No bytes yet: the producer calls the ``HTTPWake`` it was given once more may be had. Only an
    /// ``HTTPEventBodyProducer`` answers this.
    case pending
}

/// Tells the server that a producer which answered ``HTTPProduceResult/pending`` can go on. Calling it more
/// than once, or after the response ended, does nothing.
public struct HTTPWake: Sendable {
    private let action: @Sendable () -> Void
    public init(_ action: @escaping @Sendable () -> Void) { self.action = action }
    public func callAsFunction() { action() }
}

/// Supplies a streamed response body, and may block while doing so.
///
/// The server's event loops never call `produce` themselves: each call runs on one of the server's work
/// threads (a bounded pool) and its bytes are handed to the connection when it returns, so a producer that
/// blocks holds up only its own response. A producer that never waits for anything but local disk should be
/// an ``HTTPEventBodyProducer`` instead, which the loops call directly (no thread hop per piece).
/// `close` is called once when the response is done with, on any thread, while no `produce` call is running.
public protocol HTTPBodyProducer: AnyObject {
    /// Writes up to `buffer.count` bytes of the body starting at `position`.
    func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult
    /// Releases whatever the producer holds; called once, also when the client went away early.
    func close()
}

/// A producer called on the server's event loop: it returns at once with bytes read from memory or local
/// disk, or with ``HTTPProduceResult/pending`` after arranging for `wake` to be called when bytes arrive
/// (the proxy waiting for its origin), so one loop serves many responses.
public protocol HTTPEventBodyProducer: HTTPBodyProducer {
    /// Writes up to `buffer.count` bytes from `position`, or answers `.pending` and calls `wake` later.
    func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64, wake: HTTPWake) -> HTTPProduceResult
}

extension HTTPEventBodyProducer {
    /// The blocking form, for callers outside the server (tests, a zip written to a file): waits for each wake.
    public func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult {
        while true {
            let ready = DispatchSemaphore(value: 0)
            let result = produce(into: buffer, at: position, wake: HTTPWake { ready.signal() })
            guard case .pending = result else { return result }
            ready.wait()
        }
    }
}

/// How the handler wants a request with a body dealt with.
public enum HTTPHeadDecision {
    /// Answer now; any request body is read and dropped.
    case respond(HTTPResponse)
    /// Feed the body to this receiver, then answer with what it returns.
    case receive(any HTTPBodyReceiver)
    /// Deciding blocks (a tree walk, an fsync, a wait for another server): the server runs `decide` on one of
    /// its work threads, holding the connection meanwhile, and goes on with what it returns. Heads that are
    /// answered from memory or a quick look at local disk should not use this: the hop costs a thread switch.
    case offload(@Sendable () -> HTTPHeadDecision)
}

/// Consumes a streamed request body.
///
/// All calls for one request come one at a time, in order: `receive` for each chunk as it is read from the
/// socket, on the connection's event loop (it should write to local disk or memory and return), then exactly
/// one of `finish` (the whole body arrived; it runs on a work thread and may block, e.g. to fsync) or `abort`
/// (the client went away or the server stopped).
public protocol HTTPBodyReceiver: AnyObject {
    /// Takes the next chunk. Return a response to stop consuming: the rest of the body is dropped and that
    /// response is sent once the client has finished sending.
    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse?
    /// The body is complete; the returned response is sent.
    func finish() -> HTTPResponse
    /// The request ended before the body was complete. Remove anything partial.
    func abort()
}

/// What a ``HTTPPacedBodyReceiver`` did with a chunk. The chunk is always taken whole.
public enum HTTPReceiveResult {
    /// Send the next chunk when it comes.
    case more
    /// Send nothing more until the ``HTTPWake`` given with this chunk is called: the server stops reading
    /// the connection meanwhile, so a client sending faster than the receiver can pass bytes on is held back
    /// by TCP instead of by the receiver's memory.
    case paused
    /// Stop consuming, as ``HTTPBodyReceiver/receive(_:)`` returning a response does.
    case answer(HTTPResponse)
}

/// A receiver that passes bytes on to something slower than the socket (another server, a bounded queue) and
/// tells the server when to stop reading. Its `receive(_:wake:)` runs on the event loop and must return at
/// once; `wake` may be called from any thread, once the receiver can take more.
public protocol HTTPPacedBodyReceiver: HTTPBodyReceiver {
    func receive(_ chunk: UnsafeRawBufferPointer, wake: HTTPWake) -> HTTPReceiveResult
}

extension HTTPPacedBodyReceiver {
    /// The unpaced form, for callers outside the server: waits for each wake before returning.
    public func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
        let ready = DispatchSemaphore(value: 0)
        switch receive(chunk, wake: HTTPWake { ready.signal() }) {
        case .more: return nil
        case let .answer(response): return response
        case .paused:
            ready.wait()
            return nil
        }
    }
}

/// Decides how to answer each request. Called concurrently from the server's event loops: answer at once,
/// or return ``HTTPHeadDecision/offload(_:)`` for work that blocks.
public protocol HTTPHandler: Sendable {
    func head(_ request: HTTPRequest) -> HTTPHeadDecision
}

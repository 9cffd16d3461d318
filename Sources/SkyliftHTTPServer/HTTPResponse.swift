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
}

/// Supplies a streamed response body.
///
/// `produce` is called on the connection's own thread, one call at a time, and may block until bytes are there:
/// each connection has its thread, so blocking holds up no one else. `close` is called once when the response
/// is done with, on any thread, possibly while no `produce` call is running.
public protocol HTTPBodyProducer: AnyObject {
    /// Writes up to `buffer.count` bytes of the body starting at `position`.
    func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult
    /// Releases whatever the producer holds; called once, also when the client went away early.
    func close()
}

/// How the handler wants a request with a body dealt with.
public enum HTTPHeadDecision {
    /// Answer now; any request body is read and dropped.
    case respond(HTTPResponse)
    /// Feed the body to this receiver, then answer with what it returns.
    case receive(any HTTPBodyReceiver)
}

/// Consumes a streamed request body.
///
/// All calls for one request arrive on the connection's thread, in order: `receive` for each chunk as it
/// is read from the socket (blocking in it applies backpressure to the client), then exactly one of
/// `finish` (the whole body arrived) or `abort` (the client went away or the server stopped).
public protocol HTTPBodyReceiver: AnyObject {
    /// Takes the next chunk. Return a response to stop consuming: the rest of the body is dropped and that
    /// response is sent once the client has finished sending.
    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse?
    /// The body is complete; the returned response is sent.
    func finish() -> HTTPResponse
    /// The request ended before the body was complete. Remove anything partial.
    func abort()
}

/// Decides how to answer each request. Called concurrently from connection threads.
public protocol HTTPHandler: Sendable {
    func head(_ request: HTTPRequest) -> HTTPHeadDecision
}

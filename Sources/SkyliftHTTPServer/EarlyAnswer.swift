import CMicroHTTPD
import Foundation
import SkyliftCore

/// When an answer chosen before the request body ended is sent, and how.
enum EarlyAnswer {
    /// Largest request body read and dropped so the connection can carry the next request.
    static let drainLimit: Int64 = 1 << 20

    /// True when the answer waits until the request body has been read and dropped: no body or a small one
    /// of known length (a client waiting for `100 Continue` gets it from libmicrohttpd and sends the body).
    static func waitsForBody(_ request: HTTPRequest) -> Bool {
        if request.headers.contains("Transfer-Encoding") { return false }
        return (request.contentLength ?? 0) <= drainLimit
    }

    /// True when the rest of a body a receiver gave up on mid-way (a full disk) is small enough to read and
    /// drop, keeping the connection; a large or unknown rest is not worth the link.
    static func drains(_ context: RequestContext) -> Bool {
        guard !context.request.headers.contains("Transfer-Encoding"), let length = context.request.contentLength else { return false }
        return length - context.received <= drainLimit
    }

    /// What arrives after an answer written by ``answerAndClose`` is read and dropped, so the client has time to
    /// read the answer (a socket closed with unread data sends a reset, which can reach the client before it read
    /// the answer): at least this much, and for at least ``lingerTime`` (nginx lingers the same way); then the
    /// connection closes. A client that saw the answer and the end of the server's side stops sending first.
    static let lingerLimit: Int64 = 1 << 20
    static let lingerTime: UInt64 = 1_000_000_000

    /// True while the rest of a body after an early answer should still be read and dropped.
    static func lingers(_ context: RequestContext) -> Bool {
        context.dropped <= lingerLimit
            || DispatchTime.now().uptimeNanoseconds &- context.answeredAt < lingerTime
    }

    /// Sends `response` at once and ends the connection without reading the rest of the body.
    ///
    /// libmicrohttpd 0.9.75 queues a response only before the body starts or after it ended
    /// (`MHD_queue_response` refuses while it is being received), and the only way to stop reading is to
    /// fail the request, which closes the connection. So on a plain connection the small answer is written
    /// to the socket here, followed by the end of the server's side; the rest of the
    /// body is read and dropped (a client that saw the answer stops sending and closes) before the request
    /// is failed. On TLS, where the session is the library's, the connection just closes (the client reads
    /// it as a cut, asks for the offset, and is refused from the head next time).
    static func answerAndClose(_ response: HTTPResponse, on connection: OpaquePointer?, context: RequestContext,
                               plain: Bool) -> MHD_Result {
        context.finished = true
        context.receiver?.abort()
        context.receiver = nil
        context.status = response.status
        guard plain, let connection, case let .bytes(body) = response.body else { return MHD_Result.NO }
        let fd = skylift_mhd_connection_fd(connection)
        guard fd >= 0 else { return MHD_Result.NO }
        let reason = MHD_get_reason_phrase_for(UInt32(response.status)).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(response.status) \(reason)\r\n"
        for field in response.headers where !isManagedHeader(field.name) {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + body
        // The socket's buffer is empty at this point of a request (nothing was sent on it since the head was
        // read), so a few hundred bytes go at once; a short write just leaves the client with a cut.
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        guard sent == bytes.count else { return MHD_Result.NO }
        context.sent = Int64(body.count)
        shutdown(fd, Int32(SHUT_WR))
        context.answered = true
        context.answeredAt = DispatchTime.now().uptimeNanoseconds
        return MHD_Result.YES
    }
}

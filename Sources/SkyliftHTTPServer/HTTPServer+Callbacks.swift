import CMicroHTTPD
import Foundation
import SkyliftCore

// libmicrohttpd calls these plain C functions on its connection threads. Per-request state lives in a
// RequestContext whose retained pointer sits in the connection's `con_cls` slot from the first call
// until the completion callback.

/// State of one request, touched only by its connection's thread (and the completion callback, which
/// libmicrohttpd runs on that same thread once the request is over).
final class RequestContext {
    let request: HTTPRequest
    let started = DispatchTime.now()
    var receiver: (any HTTPBodyReceiver)?
    /// Response the handler chose from the head, queued once the (small) body has been read and dropped.
    var pending: HTTPResponse?
    /// Response a receiver chose before the body ended (early rejection): the rest of the body is dropped.
    var early: HTTPResponse?
    var finished = false
    /// An early answer was written to the socket; what still arrives is dropped until the connection closes.
    var answered = false
    var dropped: Int64 = 0
    var received: Int64 = 0
    var status = 0
    var sent: Int64 = 0

    init(request: HTTPRequest) { self.request = request }
}

private func headerIterator(_ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind,
                            _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> MHD_Result {
    guard let cls, let key else { return MHD_Result.YES }
    let box = cls.assumingMemoryBound(to: [(name: String, value: String?)].self)
    box.pointee.append((name: String(cString: key), value: value.map { String(cString: $0) }))
    return MHD_Result.YES
}

private func collect(_ connection: OpaquePointer?, _ kind: MHD_ValueKind) -> [(name: String, value: String?)] {
    var fields: [(name: String, value: String?)] = []
    withUnsafeMutablePointer(to: &fields) { pointer in
        _ = MHD_get_connection_values(connection, kind, headerIterator, pointer)
    }
    return fields
}

let skyliftAccessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadSize, conCls in
    guard let cls, let conCls, let uploadSize else { return MHD_Result.NO }
    guard let raw = conCls.pointee else {
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        return begin(server, connection, url: url, method: method, version: version, conCls: conCls)
    }
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
    if context.answered {
        // The answer is on the wire: read and drop a little more of the body, so the client reads the answer
        // before the connection closes, then close (see EarlyAnswer.answerAndClose).
        guard uploadSize.pointee > 0 else { return MHD_Result.NO }
        context.dropped += Int64(uploadSize.pointee)
        uploadSize.pointee = 0
        return context.dropped <= EarlyAnswer.lingerLimit ? MHD_Result.YES : MHD_Result.NO
    }
    if uploadSize.pointee > 0 {
        let count = uploadSize.pointee
        context.received += Int64(count)
        if context.early == nil, let receiver = context.receiver, let uploadData {
            context.early = receiver.receive(UnsafeRawBufferPointer(start: uploadData, count: count))
            if let early = context.early, !EarlyAnswer.drains(context) {
                let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
                return EarlyAnswer.answerAndClose(early, on: connection, context: context, plain: server.configuration.tls == nil)
            }
        }
        uploadSize.pointee = 0
        return MHD_Result.YES
    }
    // The whole request is in: only now can a queued response leave the connection open for the next one.
    guard !context.finished else { return MHD_Result.YES }
    context.finished = true
    let response: HTTPResponse
    if let pending = context.pending {
        response = pending
    } else if let early = context.early {
        context.receiver?.abort()
        response = early
    } else if let receiver = context.receiver {
        response = receiver.finish()
    } else {
        response = .text(500, "no handler for request body")
    }
    context.pending = nil
    context.receiver = nil
    return queue(response, on: connection, context: context)
}

/// First call for a request: parse the head, ask the handler, and remember what it decided.
private func begin(_ server: HTTPServer, _ connection: OpaquePointer?, url: UnsafePointer<CChar>?,
                   method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
                   conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
    let headers = collect(connection, MHD_ValueKind.HEADER_KIND).map { (name: $0.name, value: $0.value ?? "") }
    let args = collect(connection, MHD_ValueKind.GET_ARGUMENT_KIND)
    let query = args.isEmpty ? nil : args.map { arg in arg.value.map { "\(arg.name)=\($0)" } ?? arg.name }
        .joined(separator: "&")
    let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "",
                              path: url.map { String(cString: $0) } ?? "/",
                              query: query, headers: HTTPHeaders(headers),
                              version: version.map { String(cString: $0) } ?? "HTTP/1.1")
    let context = RequestContext(request: request)
    conCls.pointee = Unmanaged.passRetained(context).toOpaque()
    if isPastLimit(connection) {
        context.finished = true
        let busy = HTTPResponse.text(503, "too many connections; try again", headers: ["Retry-After": "1"])
        return queue(busy, on: connection, context: context, closing: true)
    }
    switch server.handler.head(request) {
    case let .respond(response):
        // libmicrohttpd closes the connection after a response queued before the request was read to its end.
        // Wait for the end (dropping a small body) so the connection stays open; a large or unknown body is
        // not worth reading, so answer now and let the connection close (RFC 9112 §9.6).
        guard EarlyAnswer.waitsForBody(request) else {
            context.finished = true
            return queue(response, on: connection, context: context)
        }
        context.pending = response
    case let .receive(receiver):
        context.receiver = receiver
    }
    return MHD_Result.YES
}

let skyliftRequestCompleted: MHD_RequestCompletedCallback = { cls, _, conCls, toe in
    guard let cls, let conCls, let raw = conCls.pointee else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
    conCls.pointee = nil
    if !context.finished {
        context.receiver?.abort()
        context.receiver = nil
        // The client left while its body was being drained: the chosen answer is never sent.
        context.pending?.body.release()
        context.pending = nil
    }
    let log = server.configuration.accessLog
    // A disabled access log costs this one check: no clock read, no formatting.
    guard log.isEnabled(.info) else { return }
    // Tenths of a millisecond, rounded, in integers: Foundation's String(format:) cost more than the rest of a
    // small proxied request's line.
    let tenths = (DispatchTime.now().uptimeNanoseconds &- context.started.uptimeNanoseconds &+ 50_000) / 100_000
    let outcome = toe == MHD_RequestTerminationCode.REQUEST_TERMINATED_COMPLETED_OK ? "" : " (connection ended early)"
    let status = context.status == 0 ? "-" : String(context.status)
    // The target and method are the client's bytes: escaped so a line is always one printable line.
    log.info("\(LogText.escaped(context.request.method)) \(LogText.escaped(context.request.path)) \(status) in=\(context.received) out=\(context.sent) "
        + "\(tenths / 10).\(tenths % 10)ms\(outcome)")
}

/// Owns a streamed body's producer for as long as libmicrohttpd holds the response.
private final class ProducerBox {
    let producer: any HTTPBodyProducer
    init(_ producer: any HTTPBodyProducer) { self.producer = producer }
}

private let produceCallback: MHD_ContentReaderCallback = { cls, position, buffer, max in
    guard let cls, let buffer else { return -2 }
    let box = Unmanaged<ProducerBox>.fromOpaque(cls).takeUnretainedValue()
    switch box.producer.produce(into: UnsafeMutableRawBufferPointer(start: buffer, count: max), at: Int64(position)) {
    case let .bytes(n): return n > 0 ? n : -2
    case .end: return -1 // MHD_CONTENT_READER_END_OF_STREAM
    case .failed: return -2 // MHD_CONTENT_READER_END_WITH_ERROR
    }
}

private let releaseProducer: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let box = Unmanaged<ProducerBox>.fromOpaque(cls).takeRetainedValue()
    box.producer.close()
}

/// Largest piece a streamed body is asked for at once.
private let streamBlock = 256 * 1024

/// Headers the server sets itself from the body; a handler's copies would contradict them.
let managedHeaders: Set<String> = ["content-length", "transfer-encoding", "connection"]

/// Hands the response to libmicrohttpd; `closing` ends the connection after it.
private func queue(_ response: HTTPResponse, on connection: OpaquePointer?, context: RequestContext,
                   closing: Bool = false) -> MHD_Result {
    let mhdResponse: OpaquePointer?
    switch response.body {
    case .empty:
        mhdResponse = MHD_create_response_from_buffer(0, nil, MHD_ResponseMemoryMode.RESPMEM_PERSISTENT)
    case let .bytes(bytes):
        mhdResponse = bytes.withUnsafeBytes { raw in
            MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress),
                                            MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
        }
    case let .file(descriptor, offset, length):
        mhdResponse = MHD_create_response_from_fd_at_offset64(UInt64(length), descriptor, UInt64(offset))
    case let .stream(length, producer):
        let box = Unmanaged.passRetained(ProducerBox(producer)).toOpaque()
        let size = length.map { UInt64($0) } ?? UInt64.max // MHD_SIZE_UNKNOWN
        // libmicrohttpd allocates (and clears) a buffer of this size per response: no bigger than the body.
        let block = length.map { Int(max(1, min(Int64(streamBlock), $0))) } ?? streamBlock
        mhdResponse = MHD_create_response_from_callback(size, block, produceCallback, box, releaseProducer)
        if mhdResponse == nil { releaseProducer(box) }
    }
    guard let mhdResponse else { return MHD_Result.NO }
    for field in response.headers where !managedHeaders.contains(field.name.lowercased()) {
        _ = MHD_add_response_header(mhdResponse, field.name, field.value)
    }
    if closing { _ = MHD_add_response_header(mhdResponse, "Connection", "close") }
    context.status = response.status
    context.sent = context.request.method == "HEAD" ? 0 : (response.bodyLength ?? 0)
    let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    MHD_destroy_response(mhdResponse)
    return result
}

extension HTTPResponse.Body {
    /// Frees what a body that will never be sent holds: its descriptor or its producer.
    fileprivate func release() {
        switch self {
        case let .file(descriptor, _, _): close(descriptor)
        case let .stream(_, producer): producer.close()
        case .empty, .bytes: break
        }
    }
}

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
    /// Response chosen before the body ended (early rejection): the rest of the body is dropped.
    var early: HTTPResponse?
    var finished = false
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
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()

    if conCls.pointee == nil {
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
        switch server.handler.head(request) {
        case let .respond(response):
            context.finished = true
            return queue(response, on: connection, context: context)
        case let .receive(receiver):
            context.receiver = receiver
            return MHD_Result.YES
        }
    }

    let context = Unmanaged<RequestContext>.fromOpaque(conCls.pointee!).takeUnretainedValue()
    if context.finished {
        // An answer was already queued at the head; drop whatever body still arrives.
        uploadSize.pointee = 0
        return MHD_Result.YES
    }
    if uploadSize.pointee > 0 {
        let count = uploadSize.pointee
        context.received += Int64(count)
        if context.early == nil, let receiver = context.receiver, let uploadData {
            context.early = receiver.receive(UnsafeRawBufferPointer(start: uploadData, count: count))
        }
        uploadSize.pointee = 0
        return MHD_Result.YES
    }
    context.finished = true
    let response: HTTPResponse
    if let early = context.early {
        context.receiver?.abort()
        response = early
    } else if let receiver = context.receiver {
        response = receiver.finish()
    } else {
        response = .text(500, "no handler for request body")
    }
    context.receiver = nil
    return queue(response, on: connection, context: context)
}

let skyliftRequestCompleted: MHD_RequestCompletedCallback = { cls, _, conCls, toe in
    guard let cls, let conCls, let raw = conCls.pointee else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
    conCls.pointee = nil
    if !context.finished {
        context.receiver?.abort()
        context.receiver = nil
    }
    guard let log = server.configuration.accessLog else { return }
    let ms = Double(DispatchTime.now().uptimeNanoseconds - context.started.uptimeNanoseconds) / 1_000_000
    let outcome = toe == MHD_RequestTerminationCode.REQUEST_TERMINATED_COMPLETED_OK ? "" : " (connection ended early)"
    let status = context.status == 0 ? "-" : String(context.status)
    // The target and method are the client's bytes: escaped so a line is always one printable line.
    log("\(LogText.escaped(context.request.method)) \(LogText.escaped(context.request.path)) \(status) in=\(context.received) out=\(context.sent) "
        + "\(String(format: "%.1f", ms))ms\(outcome)")
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

/// Headers the server sets itself from the body; a handler's copies would contradict them.
private let managedHeaders: Set<String> = ["content-length", "transfer-encoding", "connection"]

private func queue(_ response: HTTPResponse, on connection: OpaquePointer?, context: RequestContext) -> MHD_Result {
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
        mhdResponse = MHD_create_response_from_callback(size, 256 * 1024, produceCallback, box, releaseProducer)
        if mhdResponse == nil { releaseProducer(box) }
    }
    guard let mhdResponse else { return MHD_Result.NO }
    for field in response.headers where !managedHeaders.contains(field.name.lowercased()) {
        _ = MHD_add_response_header(mhdResponse, field.name, field.value)
    }
    context.status = response.status
    context.sent = context.request.method == "HEAD" ? 0 : (response.bodyLength ?? 0)
    let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    MHD_destroy_response(mhdResponse)
    return result
}

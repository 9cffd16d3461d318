import CMicroHTTPD
import Dispatch
import SkyliftCore

// libmicrohttpd calls these plain C functions on its event-loop threads. Per-request state lives in a
// RequestContext whose retained pointer sits in the connection's `con_cls` slot from the first call until the
// completion callback; per-connection state is a ConnectionSlot in its socket context.

/// Calls `each` with every name and value (nil when the field has none) of `kind` the request carries.
private func forEachValue(_ connection: OpaquePointer?, _ kind: MHD_ValueKind, _ each: (String, String?) -> Void) {
    withoutActuallyEscaping(each) { each in
        var visit = each
        withUnsafeMutablePointer(to: &visit) { pointer in
            _ = MHD_get_connection_values_n(connection, kind, { cls, _, key, keySize, value, valueSize in
                guard let cls, let key else { return MHD_Result.YES }
                let visit = cls.assumingMemoryBound(to: ((String, String?) -> Void).self).pointee
                visit(String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self),
                      value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) })
                return MHD_Result.YES
            }, pointer)
        }
    }
}

/// The query's arguments; a name without `=` has no value.
private func collect(_ connection: OpaquePointer?, _ kind: MHD_ValueKind) -> [(name: String, value: String?)] {
    var fields: [(name: String, value: String?)] = []
    forEachValue(connection, kind) { fields.append((name: $0, value: $1)) }
    return fields
}

/// The request's header fields, straight into the list ``HTTPHeaders`` keeps (a field without a value is empty).
private func collectHeaders(_ connection: OpaquePointer?) -> HTTPHeaders {
    var fields: [(name: String, value: String)] = []
    fields.reserveCapacity(8)
    forEachValue(connection, MHD_ValueKind.HEADER_KIND) { fields.append((name: $0, value: $1 ?? "")) }
    return HTTPHeaders(fields)
}

private func text(_ pointer: UnsafePointer<CChar>?, or fallback: String) -> String {
    pointer.map { String(cString: $0) } ?? fallback
}

let skyliftAccessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadSize, conCls in
    guard let cls, let conCls, let uploadSize, let connection else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    guard let raw = conCls.pointee else {
        let query = collect(connection, MHD_ValueKind.GET_ARGUMENT_KIND)
            .map { arg in arg.value.map { "\(arg.name)=\($0)" } ?? arg.name }
        let request = HTTPRequest(method: text(method, or: ""), path: text(url, or: "/"),
                                  query: query.isEmpty ? nil : query.joined(separator: "&"),
                                  headers: collectHeaders(connection),
                                  version: text(version, or: "HTTP/1.1"))
        return server.begin(request, on: connection, conCls: conCls)
    }
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
    return server.proceed(context, on: connection, data: uploadData, size: uploadSize)
}

extension HTTPServer {
    /// First call for a request: admit it, ask the handler, and remember what it decided.
    func begin(_ request: consuming HTTPRequest, on connection: OpaquePointer,
               conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        let slot = skylift_mhd_socket_context(connection).map { Unmanaged<ConnectionSlot>.fromOpaque($0).takeUnretainedValue() }
        var request = request
        request.peer = slot?.address
        let context = RequestContext(request: request, slot: slot)
        conCls.pointee = Unmanaged.passRetained(context).toOpaque()
        if let slot, slot.refused {
            context.finished = true
            let busy = HTTPResponse.text(503, "too many connections; try again", headers: ["Retry-After": "1"])
            return queue(busy, on: connection, context: context, closing: true)
        }
        // Closed to make room between reading this head and now: the client retries on a new connection.
        if let slot, !slot.begin() { return MHD_Result.NO }
        if context.hasBody {
            skylift_mhd_set_timeout(connection, UInt32(configuration.limits.bodyTimeout))
        }
        return apply(handler.head(request), to: context, on: connection, size: 0)
    }

    /// Every later call: a piece of the body, or (`size` 0) the end of the request.
    func proceed(_ context: RequestContext, on connection: OpaquePointer, data: UnsafePointer<CChar>?,
                 size: UnsafeMutablePointer<Int>) -> MHD_Result {
        // Suspended for work that has not resumed it yet: leave any data unread for later.
        if context.working.load(ordering: .acquiring) { return MHD_Result.YES }
        if context.answered {
            // The answer is on the wire: read and drop a little more of the body, so the client reads the answer
            // before the connection closes, then close (see EarlyAnswer.answerAndClose).
            guard size.pointee > 0 else { return MHD_Result.NO }
            context.dropped += Int64(size.pointee)
            size.pointee = 0
            return EarlyAnswer.lingers(context) ? MHD_Result.YES : MHD_Result.NO
        }
        if let decided = context.decided {
            context.decided = nil
            let result = apply(decided, to: context, on: connection, size: size.pointee)
            // A connection suspended during the first call gets that call again once resumed, with no body
            // bytes: it is not the end of the body.
            if size.pointee == 0 || context.finished || context.answered || result == MHD_Result.NO { return result }
        }
        if size.pointee > 0 { return receive(context, on: connection, data: data, size: size) }
        // The whole request is in: only now can a queued response leave the connection open for the next one.
        guard !context.finished else { return MHD_Result.YES }
        if let answer = context.answer {
            context.answer = nil
            context.finished = true
            return queue(answer, on: connection, context: context)
        }
        if let pending = context.pending {
            context.pending = nil
            context.finished = true
            return queue(pending, on: connection, context: context)
        }
        if let early = context.early {
            context.receiver?.abort()
            context.receiver = nil
            context.finished = true
            return queue(early, on: connection, context: context)
        }
        guard context.receiver != nil else {
            context.finished = true
            return queue(.text(500, "no handler for request body"), on: connection, context: context)
        }
        // `finish` may fsync and rename: off the loop. The next call after the resume queues its answer.
        context.working.store(true, ordering: .releasing)
        let started = suspensions.offload(connection) {
            context.answer = context.receiver?.finish()
            context.receiver = nil
            context.working.store(false, ordering: .releasing)
        }
        return started ? MHD_Result.YES : MHD_Result.NO
    }

    /// Hands a piece of the body to the receiver, or drops it.
    private func receive(_ context: RequestContext, on connection: OpaquePointer, data: UnsafePointer<CChar>?,
                         size: UnsafeMutablePointer<Int>) -> MHD_Result {
        let count = size.pointee
        context.received += Int64(count)
        size.pointee = 0
        guard context.early == nil, let receiver = context.receiver, let data else { return MHD_Result.YES }
        let chunk = UnsafeRawBufferPointer(start: data, count: count)
        if let paced = context.paced {
            let token = ObjectIdentifier(context)
            switch paced.receive(chunk, wake: HTTPWake { [suspensions] in suspensions.wake(token) }) {
            case .more: break
            case let .answer(response): context.early = response
            case .paused:
                // Not reading until the wake: the client's bytes wait in its socket. A wake that came already, or a
                // stopping server, leaves the connection running (stopping aborts the receiver).
                _ = suspensions.park(token, connection)
                return MHD_Result.YES
            }
        } else {
            context.early = receiver.receive(chunk)
        }
        if let early = context.early, !EarlyAnswer.drains(context) {
            return EarlyAnswer.answerAndClose(early, on: connection, context: context, plain: configuration.tls == nil)
        }
        // libmicrohttpd's edge-triggered loop takes a short read as "drained" and never reads the end of the
        // stream that came with the last bytes: a client that sent part of a body and hung up would hold its
        // upload open until the body timeout. A body still short of its length with the end already queued
        // can never complete, so the request ends here (the completion callback aborts the receiver).
        if let length = context.request.contentLength, context.received < length,
           PeerSocket.hasHungUp(skylift_mhd_connection_fd(connection)) {
            return MHD_Result.NO
        }
        return MHD_Result.YES
    }

    /// Carries out a head decision. `size` is the body bytes waiting in this call (0 on the first call).
    private func apply(_ decision: HTTPHeadDecision, to context: RequestContext, on connection: OpaquePointer,
                       size: Int) -> MHD_Result {
        switch decision {
        case let .respond(response):
            // libmicrohttpd closes the connection after a response queued before the request was read to its
            // end. Wait for the end (dropping a small body) so the connection stays open; a large or unknown body
            // is not worth reading, so answer now and let the connection close (RFC 9112 §9.6).
            if EarlyAnswer.waitsForBody(context.request) {
                context.pending = response
                return MHD_Result.YES
            }
            guard size == 0 else {
                return EarlyAnswer.answerAndClose(response, on: connection, context: context, plain: configuration.tls == nil)
            }
            context.finished = true
            return queue(response, on: connection, context: context)
        case let .receive(receiver):
            context.receiver = receiver
            return MHD_Result.YES
        case let .offload(decide):
            context.working.store(true, ordering: .releasing)
            let started = suspensions.offload(connection) {
                var decision = decide()
                while case let .offload(next) = decision { decision = next() }
                context.decided = decision
                context.working.store(false, ordering: .releasing)
            }
            return started ? MHD_Result.YES : MHD_Result.NO
        }
    }
}

let skyliftRequestCompleted: MHD_RequestCompletedCallback = { cls, connection, conCls, toe in
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
        context.answer?.body.release()
        context.answer = nil
    }
    context.slot?.end()
    if context.paced != nil { server.suspensions.forget(ObjectIdentifier(context)) }
    if let connection, context.hasBody {
        skylift_mhd_set_timeout(connection, UInt32(server.configuration.limits.keepAliveTimeout))
    }
    server.logAccess(context, completed: toe == MHD_RequestTerminationCode.REQUEST_TERMINATED_COMPLETED_OK)
}

extension HTTPServer {
    /// One access-log line per finished request at `info`. Lines never hold header values or queries.
    func logAccess(_ context: RequestContext, completed: Bool) {
        let log = configuration.accessLog
        // A disabled access log costs this one check: no clock read, no formatting.
        guard log.isEnabled(.info) else { return }
        // Tenths of a millisecond, rounded, in integers: Foundation's String(format:) cost more than the rest of a
        // small proxied request's line.
        let tenths = (DispatchTime.now().uptimeNanoseconds &- context.started.uptimeNanoseconds &+ 50_000) / 100_000
        let outcome = completed ? "" : " (connection ended early)"
        let status = context.status == 0 ? "-" : String(context.status)
        // The target and method are the client's bytes: escaped so a line is always one printable line.
        log.info("\(LogText.escaped(context.request.method)) \(LogText.escaped(context.request.path)) \(status) "
            + "in=\(context.received) out=\(context.sent) \(tenths / 10).\(tenths % 10)ms\(outcome)")
    }
}

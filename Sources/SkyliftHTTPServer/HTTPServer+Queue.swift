import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Largest piece a streamed body is asked for at once.
private let streamBlock = 256 * 1024

/// Headers the server sets itself from the body; a handler's copies would contradict them.
func isManagedHeader(_ name: String) -> Bool {
    // Most names start with another letter: one byte decides, for every header of every answer.
    switch name.utf8.first.map({ $0 | 0x20 }) {
    case UInt8(ascii: "c"): HTTPHeaders.namesMatch(name, "content-length") || HTTPHeaders.namesMatch(name, "connection")
    case UInt8(ascii: "t"): HTTPHeaders.namesMatch(name, "transfer-encoding")
    default: false
    }
}

/// Owns a streamed body's producer for as long as libmicrohttpd holds the response, and bridges its calls to
/// the event loop: an ``HTTPEventBodyProducer`` is called in place and parks the connection while it waits;
/// any other producer runs on a work thread into a staging buffer, one piece at a time.
///
/// `@unchecked Sendable`: the staging fields are written by a work thread only while the connection is
/// suspended for that work, and read by the loop after the resume (see ``RequestContext``).
final class ProducerBox: @unchecked Sendable {
    let producer: any HTTPBodyProducer
    /// The same producer when it can be called on the loop; cast once, not for every piece.
    private let event: (any HTTPEventBodyProducer)?
    let suspensions: Suspensions
    var connection: OpaquePointer?
    private var staging: UnsafeMutableRawBufferPointer?
    private var stagedFrom = 0
    private var stagedTo = 0
    private var outcome: HTTPProduceResult?
    private let working = Atomic<Bool>(false)

    init(_ producer: any HTTPBodyProducer, suspensions: Suspensions) {
        self.producer = producer
        event = producer as? any HTTPEventBodyProducer
        self.suspensions = suspensions
    }

    /// libmicrohttpd's content-reader return values.
    private static let endOfStream = -1, failure = -2

    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int, at position: Int64) -> Int {
        if suspensions.isStopping { return Self.failure }
        if let event {
            let token = ObjectIdentifier(self)
            let result = event.produce(into: UnsafeMutableRawBufferPointer(start: buffer, count: max), at: position,
                                       wake: HTTPWake { [suspensions] in suspensions.wake(token) })
            return translate(result, token: token)
        }
        return pump(into: buffer, max: max, at: position)
    }

    private func translate(_ result: HTTPProduceResult, token: ObjectIdentifier) -> Int {
        switch result {
        case let .bytes(n): return n > 0 ? n : Self.failure
        case .end: return Self.endOfStream
        case .failed: return Self.failure
        case .pending:
            guard let connection else { return Self.failure }
            // Parked: libmicrohttpd asks again after the wake. Not parked: the wake came already (ask again now),
            // or the server is stopping (the next call fails).
            _ = suspensions.park(token, connection)
            return 0
        }
    }

    /// A blocking producer: hand out what the last work-thread call staged, or start the next one.
    private func pump(into buffer: UnsafeMutablePointer<CChar>, max: Int, at position: Int64) -> Int {
        if working.load(ordering: .acquiring) { return 0 }
        if stagedFrom < stagedTo, let staging {
            let n = min(max, stagedTo - stagedFrom)
            UnsafeMutableRawPointer(buffer).copyMemory(from: staging.baseAddress! + stagedFrom, byteCount: n)
            stagedFrom += n
            return n
        }
        switch outcome {
        case .end: return Self.endOfStream
        case .failed, .pending: return Self.failure
        case .bytes, nil: break
        }
        guard let connection else { return Self.failure }
        let space = staging ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(max, 1), alignment: 16)
        staging = space
        working.store(true, ordering: .releasing)
        let started = suspensions.offload(connection) { [self] in
            defer { working.store(false, ordering: .releasing) }
            guard let staging else { outcome = .failed; return }
            switch producer.produce(into: staging, at: position) {
            case let .bytes(n) where n > 0:
                stagedFrom = 0
                stagedTo = Swift.min(n, staging.count)
            case .bytes, .failed, .pending: outcome = .failed
            case .end: outcome = .end
            }
        }
        return started ? 0 : Self.failure
    }

    func release() {
        producer.close()
        suspensions.forget(ObjectIdentifier(self))
        staging?.deallocate()
        staging = nil
    }
}

private let produceCallback: MHD_ContentReaderCallback = { cls, position, buffer, max in
    guard let cls, let buffer else { return -2 }
    let box = Unmanaged<ProducerBox>.fromOpaque(cls).takeUnretainedValue()
    return box.read(into: buffer, max: max, at: Int64(position))
}

private let releaseProducer: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<ProducerBox>.fromOpaque(cls).takeRetainedValue().release()
}

extension HTTPServer {
    /// Hands the response to libmicrohttpd; `closing` ends the connection after it.
    func queue(_ response: HTTPResponse, on connection: OpaquePointer, context: RequestContext,
               closing: Bool = false) -> MHD_Result {
        context.status = response.status
        context.sent = context.request.method == "HEAD" ? 0 : (response.bodyLength ?? 0)
        // A response kept for sending again is queued as it is; libmicrohttpd holds its own reference while sending.
        if !closing, let reuse = response.reuse, case let .bytes(bytes) = response.body,
           let kept = reuse.response(status: response.status, headers: response.headers, length: bytes.count,
                                     make: { make(response, on: connection, closing: false) }) {
            return MHD_queue_response(connection, UInt32(response.status), kept)
        }
        guard let mhdResponse = make(response, on: connection, closing: closing) else { return MHD_Result.NO }
        let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        MHD_destroy_response(mhdResponse)
        return result
    }

    /// libmicrohttpd's response for `response`: the body's source and every header field but the managed ones.
    private func make(_ response: HTTPResponse, on connection: OpaquePointer, closing: Bool) -> OpaquePointer? {
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
            let box = ProducerBox(producer, suspensions: suspensions)
            box.connection = connection
            let retained = Unmanaged.passRetained(box).toOpaque()
            let size = length.map { UInt64($0) } ?? UInt64.max // MHD_SIZE_UNKNOWN
            // libmicrohttpd allocates (and clears) a buffer of this size per response: no bigger than the body.
            let block = length.map { Int(max(1, min(Int64(streamBlock), $0))) } ?? streamBlock
            mhdResponse = MHD_create_response_from_callback(size, block, produceCallback, retained, releaseProducer)
            if mhdResponse == nil { releaseProducer(retained) }
        }
        guard let mhdResponse else { return nil }
        for field in response.headers where !isManagedHeader(field.name) {
            // withCString copies a short string to the stack; passing the String itself made a heap copy of each.
            _ = field.name.withCString { name in field.value.withCString { MHD_add_response_header(mhdResponse, name, $0) } }
        }
        if closing { _ = MHD_add_response_header(mhdResponse, "Connection", "close") }
        return mhdResponse
    }
}

extension HTTPResponse.Body {
    /// Frees what a body that will never be sent holds: its descriptor or its producer.
    func release() {
        switch self {
        case let .file(descriptor, _, _): close(descriptor)
        case let .stream(_, producer): producer.close()
        case .empty, .bytes: break
        }
    }
}

import Foundation
import SkyliftHTTPServer
import SkyliftCore
import Synchronization

/// Serves one object at `/obj` with Range, ETag, If-Match and If-Range, plus faults the HTTP source must
/// survive or report: a connection cut once after some bytes, a server that ignores Range, a version change.
final class ObjectHandler: HTTPHandler {
    struct Faults {
        /// Cut the first ranged body after this many bytes (then serve normally).
        var cutOnceAfter: Int64?
        /// Cut every ranged body after this many bytes.
        var cutEvery: Int64?
        /// Bump the version (ETag and content) at the moment of the cut.
        var changeOnCut = false
        /// Answer every GET with 200 and the whole object.
        var ignoreRange = false
        /// Required `Authorization` value, when set.
        var authorization: String?
    }

    private struct State {
        var version = 1
        var faults: Faults
        var requests: [HTTPRequest] = []
    }

    let base: [UInt8]
    private let state: Mutex<State>

    init(_ bytes: [UInt8], faults: Faults = Faults()) {
        base = bytes
        state = Mutex(State(faults: faults))
    }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    func bytes(version: Int) -> [UInt8] { version == 1 ? base : base.map { $0 &+ UInt8(truncatingIfNeeded: version) } }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        let (version, faults) = state.withLock { s in
            s.requests.append(request)
            return (s.version, s.faults)
        }
        if let auth = faults.authorization, request.headers["Authorization"] != auth {
            return .respond(.text(401, "unauthorized"))
        }
        guard request.path == "/obj", request.method == "GET" else { return .respond(.text(404, "no")) }
        let content = bytes(version: version)
        let etag = "\"v\(version)\""
        let length = Int64(content.count)
        var headers: HTTPHeaders = ["ETag": etag, "Content-Type": "application/octet-stream"]
        if let ifMatch = request.headers["If-Match"], ifMatch != etag { return .respond(.text(412, "precondition failed")) }
        let rangeApplies = !faults.ignoreRange && (request.headers["If-Range"].map { $0 == etag } ?? true)
        guard rangeApplies, let range = request.headers["Range"].flatMap(RangeHeader.init) else {
            return .respond(HTTPResponse(status: 200, headers: headers, body: .bytes(content)))
        }
        guard case let .satisfiable(ranges) = range.resolve(length: length), let first = ranges.first else {
            headers.set("Content-Range", "bytes */\(length)")
            return .respond(HTTPResponse(status: 416, headers: headers))
        }
        headers.set("Content-Range", first.contentRange(total: length))
        var cutAfter = faults.cutEvery.flatMap { first.length > $0 ? $0 : nil }
        if let k = faults.cutOnceAfter, first.length > k {
            cutAfter = k
            state.withLock { s in
                s.faults.cutOnceAfter = nil
                if s.faults.changeOnCut { s.version += 1 }
            }
        }
        let slice = Array(content[Int(first.offset) ..< Int(first.end)])
        return .respond(HTTPResponse(status: 206, headers: headers,
                                     body: .stream(length: first.length, producer: SliceProducer(slice, cutAfter: cutAfter))))
    }
}

/// Streams a slice, optionally failing (closing the connection) after `cutAfter` bytes.
final class SliceProducer: HTTPBodyProducer {
    let bytes: [UInt8]
    let cutAfter: Int64?
    init(_ bytes: [UInt8], cutAfter: Int64?) {
        self.bytes = bytes
        self.cutAfter = cutAfter
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult {
        if let cutAfter, position >= cutAfter { return .failed }
        let limit = min(Int64(bytes.count), cutAfter ?? Int64(bytes.count))
        guard position < limit else { return .end }
        let n = min(buffer.count, Int(limit - position))
        for i in 0 ..< n { buffer[i] = bytes[Int(position) + i] }
        return .bytes(n)
    }

    func close() {}
}

import Foundation
import SkyliftHTTPServer
import SkyliftCore
import Synchronization

/// An origin whose misbehaviour a test chooses: it can ignore `Range`, refuse HEAD, cut a response after
/// some bytes, or trickle bytes slowly. It demands a header, and counts every body byte it sends.
final class ScriptedOrigin: HTTPHandler, Sendable {
    struct Script: Sendable {
        var ignoreRange = false
        var refuseHead = false
        /// Close the connection after this many body bytes of any one response.
        var cutAfter: Int64?
        /// After the first cut, answer every request with 503.
        var deadAfterCut = false
        /// Pause after each 16 KiB of body.
        var trickle: Duration?
    }

    static let requiredHeader = ("X-Origin-Key", "k-123")
    let bytes: [UInt8]
    let etag: String
    let script: Mutex<Script>
    let sent = Atomic<Int64>(0)
    let requests = Atomic<Int>(0)
    let cuts = Atomic<Int>(0)
    private let server = Mutex<HTTPServer?>(nil)

    init(bytes: [UInt8], etag: String = "\"one\"", script: Script = .init()) throws {
        self.bytes = bytes
        self.etag = etag
        self.script = Mutex(script)
        let s = HTTPServer(configuration: .init(), handler: self)
        try s.start()
        server.withLock { $0 = s }
    }

    var url: URL { URL(string: server.withLock { $0!.baseURL } + "/media/clip.bin")! }
    var bytesSent: Int64 { sent.load(ordering: .relaxed) }
    func stop() { server.withLock { $0?.stop(); $0 = nil } }
    deinit { stop() }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        requests.add(1, ordering: .relaxed)
        let script = self.script.withLock { $0 }
        guard request.headers[Self.requiredHeader.0] == Self.requiredHeader.1 else { return .respond(.text(401, "key needed")) }
        if script.deadAfterCut && cuts.load(ordering: .relaxed) > 0 { return .respond(.text(503, "gone")) }
        if request.method == "HEAD" && script.refuseHead { return .respond(.text(405, "no HEAD")) }
        var headers: HTTPHeaders = ["ETag": etag, "Content-Type": "application/octet-stream", "Accept-Ranges": "bytes"]
        var range = ByteRange(offset: 0, length: Int64(bytes.count))
        var status = 200
        if !script.ignoreRange, let value = request.headers["Range"], let parsed = RangeHeader(value),
           request.headers["If-Range"].map({ $0 == etag }) ?? true,
           case let .satisfiable(ranges) = parsed.resolve(length: Int64(bytes.count)), ranges.count == 1 {
            range = ranges[0]
            status = 206
            headers.add("Content-Range", range.contentRange(total: Int64(bytes.count)))
        }
        let body = Slice(origin: self, range: range, cutAfter: script.cutAfter, trickle: script.trickle)
        return .respond(HTTPResponse(status: status, headers: headers, body: .stream(length: range.length, producer: body)))
    }

    final class Slice: HTTPBodyProducer {
        let origin: ScriptedOrigin
        let range: ByteRange
        let cutAfter: Int64?
        let trickle: Duration?
        init(origin: ScriptedOrigin, range: ByteRange, cutAfter: Int64?, trickle: Duration?) {
            self.origin = origin
            self.range = range
            self.cutAfter = cutAfter
            self.trickle = trickle
        }

        func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult {
            if position >= range.length { return .end }
            if let cutAfter, position >= cutAfter {
                origin.cuts.add(1, ordering: .relaxed)
                return .failed
            }
            var n = Int(min(Int64(buffer.count), range.length - position))
            if let cutAfter { n = min(n, Int(cutAfter - position)) }
            if let trickle {
                n = min(n, 16 * 1024)
                Thread.sleep(forTimeInterval: Double(trickle.components.attoseconds) / 1e18 + Double(trickle.components.seconds))
            }
            let start = Int(range.offset + position)
            origin.bytes[start ..< start + n].withUnsafeBytes { buffer.copyMemory(from: $0) }
            origin.sent.add(Int64(n), ordering: .relaxed)
            return .bytes(n)
        }

        func close() {}
    }
}

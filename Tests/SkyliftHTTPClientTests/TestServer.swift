import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import TestProbes
import SkyliftURLSessionHTTP
import SkyliftHTTPServer
import Synchronization
import Testing

/// What the server side of a test saw, shared between handler threads and the test.
final class ServerProbe: Sendable {
    /// Body bytes handed to the server by producers so far.
    let produced = Atomic<Int64>(0)
    /// Producers closed (the response finished or the client went away).
    let closed = Atomic<Int>(0)
    /// Lets a stalled producer go on.
    let release = DispatchSemaphore(value: 0)
}

/// A repeating pseudo-random block, so producers fill buffers with memcpy rather than per byte.
let patternBlock: [UInt8] = (0..<65_536).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }

func patternBytes(at position: Int64, count: Int) -> [UInt8] {
    (0..<count).map { patternBlock[Int((position + Int64($0)) % Int64(patternBlock.count))] }
}

/// Produces `total` pattern bytes (nil: endlessly), then ends, or fails after `failAfter` bytes.
final class PatternProducer: HTTPBodyProducer {
    let total: Int64?
    let failAfter: Int64?
    let stallAfter: Int64?
    let pause: Double?
    let probe: ServerProbe

    init(total: Int64?, failAfter: Int64? = nil, stallAfter: Int64? = nil, pause: Double? = nil, probe: ServerProbe) {
        self.total = total
        self.failAfter = failAfter
        self.stallAfter = stallAfter
        self.pause = pause
        self.probe = probe
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult {
        if let pause { Thread.sleep(forTimeInterval: pause) }
        if let failAfter, position >= failAfter { return .failed }
        if let stallAfter, position >= stallAfter {
            _ = probe.release.wait(timeout: .now() + 10)
            return .failed
        }
        if let total, position >= total { return .end }
        var n = buffer.count
        if let total { n = Int(min(Int64(n), total - position)) }
        if let failAfter { n = Int(min(Int64(n), failAfter - position)) }
        if let stallAfter { n = Int(min(Int64(n), stallAfter - position)) }
        var written = 0
        patternBlock.withUnsafeBytes { block in
            while written < n {
                let at = Int((position + Int64(written)) % Int64(block.count))
                let run = min(n - written, block.count - at)
                (buffer.baseAddress! + written).copyMemory(from: block.baseAddress! + at, byteCount: run)
                written += run
            }
        }
        probe.produced.add(Int64(n), ordering: .relaxed)
        return .bytes(n)
    }

    func close() { probe.closed.add(1, ordering: .relaxed) }
}

/// Hashes a request body and answers with its length and SHA-256, plus how it was framed.
final class DigestReceiver: HTTPBodyReceiver {
    var digest = Digest(.sha256)
    var count: Int64 = 0
    let framing: String

    init(framing: String) { self.framing = framing }

    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
        digest.update(chunk)
        count += Int64(chunk.count)
        return nil
    }

    func finish() -> HTTPResponse {
        var finished = Digest(.sha256)
        swap(&finished, &digest)
        let hex = finished.finalize().hexString
        return .text(200, "\(count) \(hex)", headers: ["X-Framing": framing])
    }

    func abort() {}
}

/// Routes for the client tests:
/// `/echo` answers `418` and echoes method, path, query and `X-Probe`; `/digest` hashes the body;
/// `/bytes/N` streams N pattern bytes; `/trickle` streams slowly forever; `/cut/N` and `/cutchunked/N` fail after
/// N bytes (with and without Content-Length); `/stall/N` sends N bytes then waits; `/file` sends the file.
struct TestHandler: HTTPHandler {
    let probe: ServerProbe
    let file: URL

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        let parts = request.path.split(separator: "/").map(String.init)
        let number = parts.count > 1 ? Int64(parts[1]) : nil
        switch (request.method, parts.first ?? "") {
        case (_, "digest"):
            let framing = [request.contentLength.map { "length \($0)" }, request.headers["Transfer-Encoding"].map { "te \($0)" }]
                .compactMap { $0 }.joined(separator: ", ")
            return .receive(DigestReceiver(framing: framing))
        case (_, "echo"):
            var headers: HTTPHeaders = ["X-Echo": request.headers["X-Probe"] ?? "-"]
            headers.add("X-Multi", "a")
            headers.add("X-Multi", "b")
            return .respond(.text(418, "\(request.method) \(request.path) \(request.query ?? "-")", headers: headers))
        case ("GET", "bytes"), ("HEAD", "bytes"):
            let n = number ?? 0
            return .respond(HTTPResponse(status: 200, body: .stream(length: n, producer: PatternProducer(total: n, probe: probe))))
        case ("GET", "trickle"):
            // Endless but slow, so a transport without backpressure cannot pile up much before it is stopped.
            return .respond(HTTPResponse(status: 200, body: .stream(length: nil, producer: PatternProducer(total: nil, pause: 0.005, probe: probe))))
        case ("GET", "cut"):
            let n = number ?? 0
            return .respond(HTTPResponse(status: 200, body: .stream(length: 2 * n, producer: PatternProducer(total: 2 * n, failAfter: n, probe: probe))))
        case ("GET", "cutchunked"):
            return .respond(HTTPResponse(status: 200, body: .stream(length: nil, producer: PatternProducer(total: nil, failAfter: number ?? 0, probe: probe))))
        case ("GET", "stall"):
            let n = number ?? 0
            return .respond(HTTPResponse(status: 200, body: .stream(length: 2 * n, producer: PatternProducer(total: 2 * n, stallAfter: n, probe: probe))))
        case ("GET", "file"):
            guard let size = try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int else {
                return .respond(.text(404, "no file"))
            }
            let fd = open(file.path, O_RDONLY)
            return .respond(HTTPResponse(status: 200, body: .file(descriptor: fd, offset: 0, length: Int64(size))))
        default:
            return .respond(.text(404, "no route"))
        }
    }
}

/// A loopback server with `TestHandler` and a scratch directory; `stop()` stops the server.
final class TestServer {
    let probe = ServerProbe()
    private let scratch: TempFolder
    let directory: URL
    let server: HTTPServer
    /// What `/file` serves.
    var file: URL { directory.appendingPathComponent("blob") }

    init() throws {
        scratch = try TempFolder("httpclient")
        directory = scratch.url
        server = HTTPServer(configuration: .init(), handler: TestHandler(probe: probe, file: directory.appendingPathComponent("blob")))
        try server.start()
    }

    func url(_ path: String) -> URL { URL(string: server.baseURL + path)! }

    /// Stops the server; the directory goes with this.
    func stop() { server.stop() }
}

/// Which transport a parameterized test runs against.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible {
    case curl, urlSession
    var testDescription: String { rawValue }

    func make(responseBufferSize: Int = 4 << 20) -> any HTTPTransport {
        switch self {
        case .curl: CurlTransport(configuration: .init(responseBufferSize: responseBufferSize))
        case .urlSession: URLSessionTransport(responseBufferSize: responseBufferSize)
        }
    }
}

/// Polls `condition` every 50 ms for up to `seconds`; waiting for the other side, not measuring it.
func eventually(within seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return condition()
}

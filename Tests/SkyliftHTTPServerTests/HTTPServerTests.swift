import Foundation
import Synchronization
import SkyliftHTTPServer
import TestProbes
import Testing
import TestPrograms

/// Echo-style handler exercising each body kind and both head decisions.
final class ProbeHandler: HTTPHandler {
    let fileURL: URL
    init(fileURL: URL) { self.fileURL = fileURL }

    final class Collect: HTTPBodyReceiver {
        var bytes: [UInt8] = []
        let limit: Int
        init(limit: Int) { self.limit = limit }
        func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
            bytes.append(contentsOf: chunk)
            return bytes.count > limit ? .text(413, "too big") : nil
        }
        func finish() -> HTTPResponse { .text(201, "got \(bytes.count)") }
        func abort() {}
    }

    /// Answers with the largest piece of the body a `receive` call got.
    final class Pieces: HTTPBodyReceiver {
        var largest = 0
        var total = 0
        func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
            largest = max(largest, chunk.count)
            total += chunk.count
            return nil
        }
        func finish() -> HTTPResponse { .text(201, "got \(total) in pieces of up to \(largest)") }
        func abort() {}
    }

    /// Pauses the connection after every chunk and wakes it a moment later from another thread; counts chunks
    /// that came while it was paused (there must be none) and sums the bytes to check they all came, in order.
    final class Paced: HTTPPacedBodyReceiver, @unchecked Sendable {
        // @unchecked Sendable: `paused` is the only field the waking thread touches, and it is atomic.
        let paused = Atomic<Bool>(false)
        var total = 0, pauses = 0, early = 0
        var sum: UInt64 = 0
        func receive(_ chunk: UnsafeRawBufferPointer, wake: HTTPWake) -> HTTPReceiveResult {
            if paused.load(ordering: .acquiring) { early += 1 }
            for byte in chunk { sum = sum &* 31 &+ UInt64(byte) }
            total += chunk.count
            pauses += 1
            paused.store(true, ordering: .releasing)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) { [self] in
                paused.store(false, ordering: .releasing)
                wake()
            }
            return .paused
        }
        func finish() -> HTTPResponse { .text(201, "got \(total) sum \(sum) pauses \(pauses) early \(early)") }
        func abort() {}
    }

    final class Counter: HTTPBodyProducer {
        let total: Int64
        init(total: Int64) { self.total = total }
        func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult {
            if position >= total { return .end }
            let n = Int(min(Int64(buffer.count), total - position))
            for i in 0..<n { buffer[i] = UInt8(truncatingIfNeeded: position + Int64(i)) }
            return .bytes(n)
        }
        func close() {}
    }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        switch (request.method, request.path) {
        case ("PUT", "/pieces"): return .receive(Pieces())
        case ("PUT", "/paced"): return .receive(Paced())
        case ("PUT", _): return .receive(Collect(limit: 1 << 20))
        case ("POST", "/reject"): return .respond(.text(403, "not here"))
        case ("GET", "/file"):
            let fd = open(fileURL.path, O_RDONLY)
            return .respond(HTTPResponse(status: 200, body: .file(descriptor: fd, offset: 2, length: 5)))
        case ("GET", "/stream"): return .respond(HTTPResponse(status: 200, body: .stream(length: 1000, producer: Counter(total: 1000))))
        case ("GET", "/chunked"): return .respond(HTTPResponse(status: 200, body: .stream(length: nil, producer: Counter(total: 777))))
        default:
            return .respond(.text(200, "\(request.method) \(request.path) q=\(request.query ?? "-") x=\(request.headers["X-Probe"] ?? "-")"))
        }
    }
}

/// Runs curl; with several URLs (or `--next`) one curl reuses its connections like any keep-alive client.
func curl(_ args: [String]) throws -> (out: Data, code: Int32) {
    let p = Process()
    p.executableURL = try TestPrograms.path("curl")
    p.arguments = ["-s"] + args
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (data, p.terminationStatus)
}

/// curl's output as text. With `-w '%{num_connects}'` it counts the TCP connections each transfer had to
/// open: 0 means the transfer went over the connection the previous one left open.
func connects(_ args: [String]) throws -> String {
    String(decoding: try curl(args).out, as: UTF8.self)
}

@Suite struct HTTPServerTests {
    func withServer(_ body: (HTTPServer) throws -> Void) throws {
        let scratch = try TempFolder("httpserver"), dir = scratch.url
        let file = dir.appendingPathComponent("f")
        try Data("0123456789".utf8).write(to: file)
        let server = HTTPServer(configuration: .init(connectionMemory: 64 * 1024), handler: ProbeHandler(fileURL: file))
        try server.start()
        defer { server.stop() }
        #expect(server.port != 0)
        try body(server)
    }

    @Test func headersQueryAndRawPath() throws {
        try withServer { s in
            let r = try curl(["-H", "X-Probe: yes", "\(s.baseURL)/a%2Fb/c?x=1&y"])
            #expect(String(decoding: r.out, as: UTF8.self) == "GET /a%2Fb/c q=x=1&y x=yes\n")
        }
    }

    @Test func fileSliceStreamAndChunked() throws {
        try withServer { s in
            #expect(String(decoding: try curl(["\(s.baseURL)/file"]).out, as: UTF8.self) == "23456")
            let stream = try curl(["\(s.baseURL)/stream"]).out
            #expect(Array(stream) == (0..<1000).map { UInt8(truncatingIfNeeded: $0) })
            #expect(try curl(["\(s.baseURL)/chunked"]).out.count == 777)
        }
    }

    @Test func uploadBodyAndEarlyRejection() throws {
        try withServer { s in
            let small = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try Data(count: 300_000).write(to: small)
            defer { try? FileManager.default.removeItem(at: small) }
            #expect(String(decoding: try curl(["-T", small.path, "\(s.baseURL)/u"]).out, as: UTF8.self) == "got 300000\n")
            let big = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try Data(count: 3 << 20).write(to: big)
            defer { try? FileManager.default.removeItem(at: big) }
            let r = try curl(["-o", "/dev/null", "-w", "%{http_code}", "-T", big.path, "\(s.baseURL)/u"])
            #expect(String(decoding: r.out, as: UTF8.self) == "413")
        }
    }

    /// The read buffer grows past half the connection memory while a body comes in, so a large body takes
    /// fewer reads (and fewer receive calls) than pieces of half of it would.
    @Test func aLargeBodyComesInPiecesLargerThanHalfTheConnectionMemory() throws {
        try withServer { s in
            let body = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try Data(count: 8 << 20).write(to: body)
            defer { try? FileManager.default.removeItem(at: body) }
            let answer = String(decoding: try curl(["-T", body.path, "\(s.baseURL)/pieces"]).out, as: UTF8.self)
            let largest = answer.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } ?? 0
            #expect(answer.hasPrefix("got \(8 << 20) in pieces"), "\(answer)")
            // withServer gives each connection 64 KiB: half of it is what the read buffer starts with.
            #expect(largest > 32 * 1024, "\(answer)")
            #expect(largest <= 64 * 1024, "\(answer)")
        }
    }

    /// A paced receiver holds the client back: it is never handed a chunk while paused, and every byte arrives.
    @Test func aPausedReceiverGetsNothingUntilItsWake() throws {
        try withServer { s in
            let bytes = (0 ..< (4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
            let body = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try Data(bytes).write(to: body)
            defer { try? FileManager.default.removeItem(at: body) }
            let sum = bytes.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) }
            let answer = String(decoding: try curl(["-T", body.path, "\(s.baseURL)/paced"]).out, as: UTF8.self)
            #expect(answer.hasPrefix("got \(4 << 20) sum \(sum) pauses "), "\(answer)")
            #expect(answer.hasSuffix(" early 0\n"), "\(answer)")
        }
    }

    @Test func oversizedHeadIs431() throws {
        try withServer { s in
            let r = try curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "X-Big: " + String(repeating: "a", count: 100_000), "\(s.baseURL)/"])
            #expect(String(decoding: r.out, as: UTF8.self) == "431")
        }
    }

    @Test func everyBodyKindKeepsTheConnection() throws {
        try withServer { s in
            let urls = ["/file", "/stream", "/chunked", "/x"].flatMap { ["-o", "/dev/null", s.baseURL + $0] }
            let r1 = try connects(["-w", "%{http_code}:%{num_connects} "] + urls)
            #expect(r1 == "200:1 200:0 200:0 200:0 ")
        }
    }

    @Test func http10KeepsTheConnectionOnlyWhenAsked() throws {
        try withServer { s in
            let two = ["-o", "/dev/null", "\(s.baseURL)/stream", "-o", "/dev/null", "\(s.baseURL)/file"]
            let r2 = try connects(["-0", "-H", "Connection: keep-alive", "-w", "%{num_connects} "] + two)
            #expect(r2 == "1 0 ")
            let r3 = try connects(["-0", "-w", "%{num_connects} "] + two)
            #expect(r3 == "1 1 ")
            // Chunked encoding does not exist in HTTP/1.0: the body ends when the connection does.
            let chunked = ["-0", "-H", "Connection: keep-alive", "-w", "%{size_download}:%{num_connects} ",
                           "-o", "/dev/null", "\(s.baseURL)/chunked", "-o", "/dev/null", "\(s.baseURL)/file"]
            let r4 = try connects(chunked)
            #expect(r4 == "777:1 5:1 ")
        }
    }

    @Test func clientAskingToCloseGetsItsConnectionClosed() throws {
        try withServer { s in
            let two = ["-o", "/dev/null", "\(s.baseURL)/a", "-o", "/dev/null", "\(s.baseURL)/b"]
            let r5 = try connects(["-H", "Connection: close", "-w", "%{num_connects} "] + two)
            #expect(r5 == "1 1 ")
        }
    }

    @Test func answersBeforeTheBodyKeepTheConnectionOnceTheBodyIsRead() throws {
        try withServer { s in
            let next = ["--next", "-o", "/dev/null", "-w", "%{http_code}:%{num_connects}", "\(s.baseURL)/after"]
            // The handler answers from the head; the small body is read and dropped, then the next request follows.
            let rejected = try connects(["-o", "/dev/null", "-w", "%{http_code}:%{num_connects} ", "-H", "Expect:",
                                         "--data-binary", String(repeating: "b", count: 50_000), "\(s.baseURL)/reject"] + next)
            #expect(rejected == "403:1 200:0")
            // A receiver refuses part-way (413 past 1 MiB); the rest of the body is drained, the connection stays.
            let big = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try Data(count: 1_500_000).write(to: big)
            defer { try? FileManager.default.removeItem(at: big) }
            let refused = try connects(["-o", "/dev/null", "-w", "%{http_code}:%{num_connects} ", "-T", big.path, "\(s.baseURL)/u"] + next)
            #expect(refused == "413:1 200:0")
        }
    }

    @Test func aLargeBodyAnsweredFromTheHeadIsNotRead() throws {
        try withServer { s in
            // Past the drain limit the answer goes out at once and the connection closes instead of reading megabytes.
            let big = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
            try Data(count: 4 << 20).write(to: big)
            defer { try? FileManager.default.removeItem(at: big) }
            let r = try connects(["-o", "/dev/null", "-w", "%{http_code} ", "-H", "Expect: 100-continue",
                                  "--data-binary", "@" + big.path, "\(s.baseURL)/reject",
                                  "--next", "-o", "/dev/null", "-w", "%{http_code}:%{num_connects}", "\(s.baseURL)/after"])
            #expect(r == "403 200:1")
        }
    }
}

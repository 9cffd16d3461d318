import Foundation
import HTTPServer
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
        case ("PUT", _): return .receive(Collect(limit: 1 << 20))
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

@Suite struct HTTPServerTests {
    func withServer(_ body: (HTTPServer) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
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

    @Test func oversizedHeadIs431() throws {
        try withServer { s in
            let r = try curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "X-Big: " + String(repeating: "a", count: 100_000), "\(s.baseURL)/"])
            #expect(String(decoding: r.out, as: UTF8.self) == "431")
        }
    }
}

import Foundation
import SkyliftHashing
@testable import SkyliftHTTPClient
import Testing

/// CurlTransport runs transfers on its own bounded executors, not on a new thread per request (issue 27).
@Suite struct CurlTransportThreadTests {
    @Test func sequentialRequestsReuseTheirThreads() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = CurlTransport()
        for i in 0 ..< 30 {
            let response = try await transport.execute(HTTPClientRequest(url: server.url("/bytes/\(i * 100)")))
            #expect(try await response.collect(upTo: 1 << 20) == patternBytes(at: 0, count: i * 100))
        }
        // One thread, or two when a request came while the last one's thread was finishing its job.
        #expect(transport.executor.threadCount <= 2)
        #expect(transport.streaming.threadCount == 0)
    }

    /// More requests at once than the transport runs: the rest wait for a thread, and every one completes.
    @Test func requestsBeyondTheLimitWaitAndComplete() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = CurlTransport(configuration: .init(maxTransfers: 2))
        let urls = (0 ..< 8).map { server.url("/bytes/\(300_000 + $0)") }
        let bodies = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for url in urls {
                group.addTask {
                    let response = try await transport.execute(HTTPClientRequest(url: url))
                    return try await response.collect(upTo: 1 << 20)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies.map(\.count).sorted() == (0 ..< 8).map { 300_000 + $0 })
        #expect(transport.executor.threadCount <= 2)
    }

    /// A streamed body that reads a GET of the same transport (`copy`), with one transfer allowed at a time:
    /// streamed bodies and the rest run on separate executors, so the GET gets a thread while the upload
    /// holds the other. On one shared executor of one thread the GET would wait behind the upload forever.
    @Test(.timeLimit(.minutes(1))) func aBodyReadingAGetOfTheSameTransportCompletes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = CurlTransport(configuration: .init(maxTransfers: 1))
        let length: Int64 = 3_000_000
        let source = server.url("/bytes/\(length)")
        let response = try await transport.execute(HTTPClientRequest(
            method: "PUT", url: server.url("/digest"),
            body: .stream(length: length) { RelayedStream(transport: transport, source: source) }))
        let answer = String(decoding: try await response.collect(upTo: 1024), as: UTF8.self)
        #expect(answer == "\(length) \(Digest.hash(.sha256, patternBytes(at: 0, count: Int(length))).hexString)\n")
    }
}

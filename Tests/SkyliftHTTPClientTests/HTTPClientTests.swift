import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftURLSessionHTTP
import Synchronization
import Testing

/// Writes `size` pseudo-random bytes to `url` in 1 MiB pieces and returns their SHA-256.
func writeRandomFile(_ url: URL, size: Int) throws -> String {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var digest = Digest(.sha256)
    guard let random = FileHandle(forReadingAtPath: "/dev/urandom") else { throw CocoaError(.fileReadUnknown) }
    defer { try? random.close() }
    var left = size
    while left > 0 {
        let piece = try random.read(upToCount: min(left, 1 << 20)) ?? Data()
        let n = piece.count
        digest.update(piece)
        try handle.write(contentsOf: piece)
        left -= n
    }
    return digest.finalize().hexString
}

/// FoundationNetworking (Linux) sends every streamed body chunked.
#if canImport(FoundationNetworking)
let linuxFoundation = true
#else
let linuxFoundation = false
#endif

final class ChunkCounter: Sendable {
    let count = Atomic<Int>(0)
}

// Serialized: the large transfers would otherwise compete for the machine's two cores and starve each other.
@Suite(.serialized, .timeLimit(.minutes(1))) struct HTTPClientTests {
    @Test(arguments: TransportKind.allCases)
    func statusHeadersAndQueryRoundTrip(kind: TransportKind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await kind.make().execute(HTTPClientRequest(
            method: "PROPFIND", url: server.url("/echo/a%2Fb?x=1&y"), headers: ["X-Probe": "hello there"]))
        #expect(response.status == 418)
        #expect(response.headers["x-echo"] == "hello there")
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
        let body = try await response.collect(upTo: 1024)
        #expect(String(decoding: body, as: UTF8.self) == "PROPFIND /echo/a%2Fb x=1&y\n")
    }

    @Test(arguments: TransportKind.allCases)
    func headGetsLengthWithoutBody(kind: TransportKind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await kind.make().execute(HTTPClientRequest(method: "HEAD", url: server.url("/bytes/12345")))
        #expect(response.status == 200)
        #expect(response.headers["Content-Length"] == "12345")
        #expect(try await response.collect(upTo: 0) == [])
    }

    @Test(arguments: TransportKind.allCases)
    func manySequentialRequestsOnOneTransport(kind: TransportKind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = kind.make()
        for i in 0..<20 {
            let response = try await transport.execute(HTTPClientRequest(url: server.url("/bytes/\(i * 1000)")))
            let body = try await response.collect(upTo: 1 << 20)
            #expect(body == patternBytes(at: 0, count: i * 1000))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func smallBodiesAndEmptyPost(kind: TransportKind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = kind.make()
        let bytes = Array("<propfind/>".utf8)
        let response = try await transport.execute(HTTPClientRequest(method: "POST", url: server.url("/digest"), body: .bytes(bytes)))
        let text = String(decoding: try await response.collect(upTo: 1024), as: UTF8.self)
        #expect(text == "\(bytes.count) \(Digest.hash(.sha256, bytes).hexString)\n")
        #expect(response.headers["X-Framing"] == "length \(bytes.count)")

        let empty = try await transport.execute(HTTPClientRequest(method: "POST", url: server.url("/digest")))
        #expect(String(decoding: try await empty.collect(upTo: 1024), as: UTF8.self) == "0 \(Digest.hash(.sha256, [UInt8]()).hexString)\n")
        #expect(empty.headers["X-Framing"] == "length 0")
    }

    @Test(arguments: TransportKind.allCases)
    func streamedUploadOf50MiBMatchesServerDigest(kind: TransportKind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let size = 50 << 20
        let source = server.directory.appendingPathComponent("upload")
        let expected = try writeRandomFile(source, size: size)
        let response = try await kind.make().execute(HTTPClientRequest(
            method: "PUT", url: server.url("/digest"),
            body: .stream(length: Int64(size)) { InputStream(url: source)! }))
        #expect(response.status == 200)
        #expect(response.headers["X-Framing"] == (kind == .urlSession && linuxFoundation ? "te chunked" : "length \(size)"))
        #expect(String(decoding: try await response.collect(upTo: 1024), as: UTF8.self) == "\(size) \(expected)\n")
    }

    @Test(arguments: TransportKind.allCases)
    func streamedUploadOfUnknownLengthIsChunked(kind: TransportKind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let size = 3 << 20 + 17
        let source = server.directory.appendingPathComponent("upload")
        let expected = try writeRandomFile(source, size: size)
        let response = try await kind.make().execute(HTTPClientRequest(
            method: "POST", url: server.url("/digest"), body: .stream(length: nil) { InputStream(url: source)! }))
        #expect(response.headers["X-Framing"] == "te chunked")
        #expect(String(decoding: try await response.collect(upTo: 1024), as: UTF8.self) == "\(size) \(expected)\n")
    }

    @Test func bodyStreamShorterThanDeclaredFails() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let source = server.directory.appendingPathComponent("upload")
        _ = try writeRandomFile(source, size: 1000)
        let url = server.url("/digest")
        await #expect(throws: HTTPClientError.bodyStreamFailed(url: url, reason: "body stream ended after 1000 of 5000 bytes")) {
            _ = try await CurlTransport().execute(HTTPClientRequest(
                method: "PUT", url: url, body: .stream(length: 5000) { InputStream(url: source)! }))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func largeDownloadIsByteExact(kind: TransportKind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let size = 40 << 20 + 5
        let expected = try writeRandomFile(server.file, size: size)
        let response = try await kind.make().execute(HTTPClientRequest(url: server.url("/file")))
        #expect(response.status == 200)
        #expect(response.headers["Content-Length"] == "\(size)")
        var digest = Digest(.sha256)
        var count = 0
        for try await chunk in response.body {
            digest.update(chunk)
            count += chunk.count
        }
        #expect(count == size)
        #expect(digest.finalize().hexString == expected)
    }

    // Curl only: FoundationNetworking on Linux queues every received chunk for the delegate without limit,
    // so URLSessionTransport cannot hold the server back there (see URLSessionTransport).
    @Test(arguments: [TransportKind.curl])
    func slowConsumerHoldsBackTheServer(kind: TransportKind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let total: Int64 = 256 << 20
        let response = try await kind.make(responseBufferSize: 1 << 20).execute(HTTPClientRequest(url: server.url("/bytes/\(total)")))
        var iterator = response.body.makeAsyncIterator()
        var taken: Int64 = 0
        var furthestAhead: Int64 = 0
        for _ in 0..<4 {
            taken += Int64(try await iterator.next()?.count ?? 0)
            // Let the server run until it is held back (its count stops moving), then see how far ahead it got.
            var last: Int64 = -1
            _ = await eventually {
                let now = server.probe.produced.load(ordering: .relaxed)
                defer { last = now }
                return now == last
            }
            furthestAhead = max(furthestAhead, server.probe.produced.load(ordering: .relaxed) - taken)
        }
        // Client buffer (1 MiB) plus socket buffers on both ends; without backpressure it would be the whole body.
        #expect(furthestAhead < 32 << 20)
        #expect(furthestAhead > 0)
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingTheConsumerStopsTheServer(kind: TransportKind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = kind.make()
        let url = server.url("/trickle")
        let chunks = ChunkCounter()
        let consumer = Task {
            let response = try await transport.execute(HTTPClientRequest(url: url))
            for try await _ in response.body { chunks.count.add(1, ordering: .relaxed) }
        }
        #expect(await eventually { chunks.count.load(ordering: .relaxed) > 0 })
        consumer.cancel()
        await #expect(throws: HTTPClientError.cancelled) { try await consumer.value }
        #expect(await eventually { server.probe.closed.load(ordering: .relaxed) == 1 })
    }

    @Test(arguments: TransportKind.allCases)
    func droppingTheBodyStopsTheServer(kind: TransportKind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        do {
            let response = try await kind.make().execute(HTTPClientRequest(url: server.url("/trickle")))
            var iterator = response.body.makeAsyncIterator()
            #expect(try await iterator.next() != nil)
        }
        #expect(await eventually { server.probe.closed.load(ordering: .relaxed) == 1 })
    }

    @Test(arguments: TransportKind.allCases)
    func collectRefusesBodiesOverTheLimit(kind: TransportKind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let url = server.url("/bytes/5000")
        let response = try await kind.make().execute(HTTPClientRequest(url: url))
        await #expect(throws: HTTPClientError.bodyTooLarge(url: url, limit: 4999)) {
            _ = try await response.collect(upTo: 4999)
        }
    }

    @Test(arguments: TransportKind.allCases, ["/cut/3000000", "/cutchunked/3000000"])
    func connectionCutMidBodyIsTransferFailed(kind: TransportKind, path: String) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let url = server.url(path)
        let response = try await kind.make().execute(HTTPClientRequest(url: url))
        #expect(response.status == 200)
        var received = 0
        do {
            for try await chunk in response.body { received += chunk.count }
            Issue.record("body ended normally after \(received) bytes")
        } catch let HTTPClientError.transferFailed(failedURL, _) {
            #expect(failedURL == url)
        }
        #expect(received <= 3_000_000)
    }

    @Test(arguments: TransportKind.allCases)
    func refusedPortIsConnectFailed(kind: TransportKind) async throws {
        let server = try TestServer()
        let url = server.url("/echo")
        server.stop()
        do {
            _ = try await kind.make().execute(HTTPClientRequest(url: url, timeout: 5))
            Issue.record("request to a closed port succeeded")
        } catch let HTTPClientError.connectFailed(failedURL, _) {
            #expect(failedURL == url)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func bytesReachTheConsumerWhileTheServerPauses(kind: TransportKind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await kind.make().execute(HTTPClientRequest(url: server.url("/stall/1000"), timeout: 30))
        var received = 0
        do {
            for try await chunk in response.body {
                received += chunk.count
                // The server holds the rest back until released: these bytes must not wait for the body's end.
                if received == 1000 { server.probe.release.signal() }
            }
            Issue.record("body ended normally")
        } catch HTTPClientError.transferFailed {
            #expect(received == 1000)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func silentServerTimesOut(kind: TransportKind) async throws {
        let server = try TestServer()
        defer {
            server.probe.release.signal()
            server.stop()
        }
        let url = server.url("/stall/1000")
        let response = try await kind.make().execute(HTTPClientRequest(url: url, timeout: 1))
        await #expect(throws: HTTPClientError.timedOut(url: url)) {
            _ = try await response.collect(upTo: 1 << 20)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func errorsHideCredentialsAndSignatures(kind: TransportKind) async throws {
        let server = try TestServer()
        server.stop()
        let port = server.server.port
        let url = URL(string: "http://user:pw@127.0.0.1:\(port)/b/k?partNumber=2&X-Amz-Signature=abc&X-Amz-Credential=AK")!
        do {
            _ = try await kind.make().execute(HTTPClientRequest(url: url, timeout: 5))
            Issue.record("request to a closed port succeeded")
        } catch let error as HTTPClientError {
            guard case let .connectFailed(failedURL, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failedURL.absoluteString == "http://127.0.0.1:\(port)/b/k?partNumber=2&X-Amz-Signature=REDACTED&X-Amz-Credential=REDACTED")
            #expect(!error.description.contains("pw"))
            #expect(!error.description.contains("abc"))
        }
    }

    @Test func invalidRequestsNameTheProblem() async throws {
        let transport = CurlTransport()
        let ftp = URL(string: "ftp://127.0.0.1/x")!
        await #expect(throws: HTTPClientError.invalidRequest(url: ftp, reason: "only http and https URLs are supported")) {
            _ = try await transport.execute(HTTPClientRequest(url: ftp))
        }
        let url = URL(string: "http://127.0.0.1:9/x")!
        await #expect(throws: HTTPClientError.invalidRequest(url: url, reason: "header X-Bad has a line break in its value")) {
            _ = try await transport.execute(HTTPClientRequest(url: url, headers: ["X-Bad": "a\r\nInjected: 1"]))
        }
    }
}

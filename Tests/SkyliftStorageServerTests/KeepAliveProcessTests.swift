import Foundation
import SkyliftStorageServer
import TestProbes
import Testing

/// Persistent connections on the real `skylift serve` binary (and an in-process `StorageServer` for the
/// connection limit), driven over one raw socket each: every answer read from a `RawConnection` came over its
/// single TCP connect. The proxy's side is `ProxyKeepAliveTests` (SkyliftCLITests).
@Suite struct KeepAliveProcessTests {
    static let token = "ka-token-\(UUID().uuidString)"
    static let auth = "Authorization: Bearer \(token)\r\n"

    /// A `skylift serve` child on a temp root, and the port it listens on.
    func serve() throws -> (ServeProcess, port: UInt16, root: TempFolder) {
        let root = try TempFolder("ka")
        let process = try ServeProcess(["--root", root.url.path, "--listen", "127.0.0.1:0", "--token", Self.token, "--quiet"],
                                       environment: ["PATH": "/usr/bin:/bin"])
        let url = try #require(process.lines(3).first { $0.hasPrefix("  url:") })
        let port = try #require(url.split(separator: ":").last?.split(separator: "/").first.flatMap { UInt16($0) })
        return (process, port, root)
    }

    @Test func serveAnswersAn401AndTheAuthorizedRetryOnOneConnection() throws {
        let (process, port, scratch) = try serve(), root = scratch.url
        defer { _ = process.terminate() }
        let c = try RawConnection(port: port)
        // No credentials: 401 before the body is read; the small body is drained and the connection stays.
        try c.send("PUT /dav/a.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\n", body: Array("hello".utf8))
        let refused = try c.response()
        #expect(refused.status == 401)
        #expect(refused.header("WWW-Authenticate") != nil)
        try c.send("PUT /dav/a.txt HTTP/1.1\r\nHost: t\r\n\(Self.auth)Content-Length: 5\r\n\r\n", body: Array("hello".utf8))
        #expect(try c.response().status == 201)
        try c.send("GET /dav/a.txt HTTP/1.1\r\nHost: t\r\n\(Self.auth)\r\n")
        let got = try c.response()
        #expect(got.status == 200 && got.text == "hello")
        #expect(got.header("Connection") == nil)
        #expect(try String(contentsOf: root.appendingPathComponent("a.txt"), encoding: .utf8) == "hello")
    }

    @Test func servePipelinedRequestsAreAnsweredInOrder() throws {
        let (process, port, scratch) = try serve(), root = scratch.url
        defer { _ = process.terminate() }
        try Data("first".utf8).write(to: root.appendingPathComponent("one.txt"))
        try Data("second!".utf8).write(to: root.appendingPathComponent("two.txt"))
        let c = try RawConnection(port: port)
        let get = { (path: String, method: String) in "\(method) /dav/\(path) HTTP/1.1\r\nHost: t\r\n\(Self.auth)\r\n" }
        try c.send(get("one.txt", "GET") + get("two.txt", "HEAD") + get("none.txt", "GET") + get("two.txt", "GET")
            + "PROPFIND /dav/ HTTP/1.1\r\nHost: t\r\n\(Self.auth)Depth: 1\r\nContent-Length: 0\r\n\r\n")
        let one = try c.response()
        #expect(one.status == 200 && one.text == "first")
        let head = try c.response(head: true)
        #expect(head.status == 200 && head.header("Content-Length") == "7")
        #expect(try c.response().status == 404)
        #expect(try c.response().text == "second!")
        let listing = try c.response()
        #expect(listing.status == 207 && listing.text.contains("two.txt"))
    }

    @Test func serveHTTP10KeepsTheConnectionOnlyWhenAsked() throws {
        let (process, port, scratch) = try serve(), root = scratch.url
        defer { _ = process.terminate() }
        try Data("ten".utf8).write(to: root.appendingPathComponent("f.txt"))
        let c = try RawConnection(port: port)
        for _ in 0..<2 {
            try c.send("GET /dav/f.txt HTTP/1.0\r\nConnection: keep-alive\r\n\(Self.auth)\r\n")
            let r = try c.response()
            #expect(r.status == 200 && r.text == "ten")
            #expect(r.header("Connection")?.lowercased() == "keep-alive")
        }
        try c.send("GET /dav/f.txt HTTP/1.0\r\n\(Self.auth)\r\n")
        #expect(try c.response().text == "ten")
        #expect(c.isClosedByServer())
    }

    @Test func serveEarly413WithAnUnreadBodyKeepsTheConnection() throws {
        let (process, port, scratch) = try serve()
        defer { _ = process.terminate(); withExtendedLifetime(scratch) {} }
        let c = try RawConnection(port: port)
        try c.send("POST /dav/ HTTP/1.1\r\nHost: t\r\n\(Self.auth)Tus-Resumable: 1.0.0\r\nUpload-Length: 5\r\n"
            + "Upload-Metadata: filename \(Data("t.bin".utf8).base64EncodedString())\r\nContent-Length: 0\r\n\r\n")
        let created = try c.response()
        #expect(created.status == 201)
        let location = try #require(created.header("Location").flatMap { URL(string: $0)?.path })
        // Ten bytes for a five-byte upload: refused from the head, the body is read and dropped.
        try c.send("PATCH \(location) HTTP/1.1\r\nHost: t\r\n\(Self.auth)Tus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\n"
            + "Content-Type: application/offset+octet-stream\r\nContent-Length: 10\r\n\r\n", body: Array("0123456789".utf8))
        #expect(try c.response().status == 413)
        try c.send("PATCH \(location) HTTP/1.1\r\nHost: t\r\n\(Self.auth)Tus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\n"
            + "Content-Type: application/offset+octet-stream\r\nContent-Length: 5\r\n\r\n", body: Array("01234".utf8))
        #expect(try c.response().status == 204)
        try c.send("GET /dav/t.bin HTTP/1.1\r\nHost: t\r\n\(Self.auth)\r\n")
        #expect(try c.response().text == "01234")
    }

    @Test func atTheCapTheOldestIdleConnectionMakesRoomAndOnlyAllBusyGets503() throws {
        let scratch = try TempFolder("ka-limit"), root = scratch.url
        try Data("x".utf8).write(to: root.appendingPathComponent("x"))
        // A keep-alive timeout far past any stall of a loaded machine between two steps (tests run side by side):
        // nothing here may be closed for idling (that is the next test).
        let limits = HTTPLimits(connections: 2, keepAliveTimeout: 120)
        let server = try StorageServer(configuration: StorageConfiguration(root: root, token: nil, limits: limits))
        try server.start()
        defer { server.stop() }
        let request = "GET /dav/x HTTP/1.1\r\nHost: localhost\r\n\r\n"
        // One after the other, so the server has surely numbered held[0] first (two connections opened at once may
        // be taken up by two event loops in either order).
        var held: [RawConnection] = []
        for _ in 0..<2 {
            let c = try RawConnection(port: server.port)
            try c.send(request)
            #expect(try c.response().status == 200)
            held.append(c)
        }
        // Both held connections are idle: a third one closes the older of them and is served.
        let third = try RawConnection(port: server.port)
        try third.send(request)
        #expect(try third.response().status == 200)
        #expect(held[0].isClosedByServer())
        try held[1].send(request)
        #expect(try held[1].response().status == 200)
        // Both counted connections busy (bodies half sent): the next one is refused with 503, not reset.
        let put = "PUT /dav/y HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\n12345"
        try held[1].send(put)
        try third.send(put)
        // Until the server has read both heads they still look idle, and the next one would close one of them.
        let deadline = Date().addingTimeInterval(30)
        while server.connectionsBusy < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        try #require(server.connectionsBusy == 2, "the server read \(server.connectionsBusy) of the two PUT heads")
        let extra = try RawConnection(port: server.port)
        try extra.send(request)
        let busy = try extra.response()
        #expect(busy.status == 503 && busy.header("Retry-After") == "1")
        #expect(extra.isClosedByServer())
        try held[1].send("67890")
        #expect(try held[1].response().status == 201)
    }

    @Test func anIdleKeepAliveConnectionIsClosedAtItsTimeout() throws {
        let scratch = try TempFolder("ka-idle"), root = scratch.url
        try Data("x".utf8).write(to: root.appendingPathComponent("x"))
        let server = try StorageServer(configuration: StorageConfiguration(root: root, token: nil, limits: HTTPLimits(keepAliveTimeout: 1)))
        try server.start()
        defer { server.stop() }
        // Reads wait up to 30 s: the server closes the idle connection after 1 s however late its loop runs.
        let c = try RawConnection(port: server.port, timeout: 30)
        try c.send("GET /dav/x HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try c.response().status == 200)
        #expect(c.isClosedByServer())
    }
}

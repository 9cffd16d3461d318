import Foundation
import SkyliftCore
import SkyliftStorageServer
import Synchronization
import TestProbes
import Testing

/// Persistent connections on the real `skylift proxy` binary, driven over one raw socket: every answer read from
/// a `RawConnection` came over its single TCP connect, and the proxy reuses its own connections to the origin.
@Suite struct ProxyKeepAliveTests {
    static let token = "ka-token-\(UUID().uuidString)"

    @Test func proxyServesManyRangesOnOneConnectionAndReusesItsOriginConnection() throws {
        let scratch = try TempFolder("ka-proxy"), base = scratch.url
        let root = try scratch.folder("cloud")
        let data = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for i in 0..<5 { try Data(data).write(to: root.appendingPathComponent("clip\(i).mp4")) }
        let originRequests = Mutex(0)
        let cloud = try StorageServer(configuration: StorageConfiguration(root: root, token: Self.token, accessLog: Logger(label: "access") { _ in
            originRequests.withLock { $0 += 1 }
        }))
        try cloud.start()
        defer { cloud.stop() }
        let proxy = try ProxyProcess(["--origin", cloud.baseURL + "/dav", "--token", Self.token, "--listen", "127.0.0.1:0",
                                      "--cache-dir", base.appendingPathComponent("cache").path, "--quiet"])
        defer { proxy.process.terminate(); _ = proxy.finish() }
        let port = try #require(try proxy.url().split(separator: ":").last.flatMap { UInt16($0) })
        let c = try RawConnection(port: port)
        let range = { (i: Int, from: Int, to: Int) in "GET /clip\(i).mp4 HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=\(from)-\(to)\r\n\r\n" }
        for i in 0..<5 {
            try c.send(range(i, 0, 9))
            let r = try c.response()
            #expect(r.status == 206 && r.body == Array(data[0...9]))
        }
        // Pipelined, warm and cold mixed.
        try c.send(range(0, 100, 199) + range(1, 150_000, 150_099) + "GET /nothing.mp4 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + range(2, 7, 7))
        #expect(try c.response().body == Array(data[100...199]))
        #expect(try c.response().body == Array(data[150_000...150_099]))
        #expect(try c.response().status == 404)
        #expect(try c.response().body == [data[7]])
        // A method the proxy refuses, with a small body, then a GET on the same connection.
        try c.send("PUT /clip0.mp4 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\n", body: [1, 2, 3])
        #expect(try c.response().status == 405)
        try c.send(range(3, 0, 0))
        #expect(try c.response().body == [data[0]])
        // Six cold resources took a HEAD and block GETs each from the origin, over connections the proxy kept:
        // as many as it had requests in flight at once, not one per request.
        let requests = originRequests.withLock { $0 }, connections = cloud.connectionsAccepted
        #expect(requests >= 12 && connections <= 4, "the proxy opened \(connections) connections for \(requests) origin requests")
    }
}

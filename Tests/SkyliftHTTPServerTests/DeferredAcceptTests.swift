import Foundation
import SkyliftHTTPServer
import TestProbes
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Deferred accept: the kernel keeps a connection that has sent nothing yet, so the loops take it in once its
/// request is there (one wake-up instead of two); a connection that stays silent still reaches the server and
/// its header timeout.
@Suite(.serialized) struct DeferredAcceptTests {
    private struct Hello: HTTPHandler {
        func head(_ request: HTTPRequest) -> HTTPHeadDecision { .respond(.text(200, "hello")) }
    }

    private static let get = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    private func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return condition()
    }

    @Test func aConnectionIsTakenInWhenItsRequestArrives() throws {
        let server = HTTPServer(configuration: .init(), handler: Hello())
        try server.start()
        defer { server.stop() }
        let connected = Date()
        let c = try RawConnection(port: server.port)
        // Time enough for a loop to accept a connection the kernel reported. The kernel holds a silent one for
        // at least a second, so the check only means something before then; a stalled machine skips it.
        Thread.sleep(forTimeInterval: 0.3)
        let accepted = server.connectionsAccepted
        if Date().timeIntervalSince(connected) < 0.9 {
            #expect(accepted == 0, "a connection that sent nothing was accepted")
        }
        try c.send(Self.get)
        let r = try c.response()
        #expect(r.status == 200 && r.text == "hello\n")
        #expect(server.connectionsAccepted == 1)
    }

    @Test func withoutDeferringASilentConnectionIsTakenInAtOnce() throws {
        let server = HTTPServer(configuration: .init(deferAccept: false), handler: Hello())
        try server.start()
        defer { server.stop() }
        let c = try RawConnection(port: server.port)
        #expect(waitUntil(seconds: 5) { server.connectionsAccepted == 1 })
        try c.send(Self.get)
        #expect(try c.response().status == 200)
    }

    @Test func aConnectionThatStaysSilentIsClosedByTheHeaderTimeout() throws {
        let server = HTTPServer(configuration: .init(limits: HTTPLimits(headerTimeout: 1)), handler: Hello())
        try server.start()
        defer { server.stop() }
        let fd = try RawConnection.connectedSocket(port: server.port)
        defer { close(fd) }
        #expect(waitUntil(seconds: 10) { server.connectionsAccepted == 1 }, "the kernel never handed it over")
        // Then the head deadline ends it with an orderly end of stream, not a reset.
        var tv = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, 0)
        #expect(n == 0, "recv gave \(n), errno \(errno)")
        #expect(waitUntil(seconds: 5) { server.connectionsOpen == 0 })
    }
}

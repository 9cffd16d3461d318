import Foundation
import TestProbes
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection opened and left silent, whose fate is read without blocking.
private final class IdleSocket {
    enum Fate: Equatable { case open, closed, reset, other(Int32) }
    private let fd: Int32

    init(port: UInt16) throws { fd = try RawConnection.connectedSocket(port: port) }

    deinit { close(fd) }

    func send(_ text: String) {
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    /// Open (nothing to read yet), closed by the server (end of stream), or reset.
    var fate: Fate {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
        if n == 0 { return .closed }
        if n > 0 { return .other(0) }
        switch errno {
        case EAGAIN: return .open
        case ECONNRESET: return .reset
        default: return .other(errno)
        }
    }
}

/// The caps and deadlines of `skylift serve` against real sockets: a flood of idle connections from one address,
/// past both caps, never shuts out an ordinary client from that same address, and nobody is reset.
@Suite(.serialized) struct ConnectionCapTests {
    private func startServe(_ root: URL, _ extra: [String]) throws -> (ServeProcess, UInt16) {
        let serve = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--no-auth", "--quiet"] + extra,
                                     environment: ["PATH": "/usr/bin:/bin"])
        let url = try #require(serve.lines(3).first { $0.hasPrefix("  url:") }).replacingOccurrences(of: "  url:   ", with: "")
        return (serve, UInt16(try #require(URL(string: url)?.port)))
    }

    private static let get = "GET /dav/a.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    @Test func anIdleFloodPastTheCapsLeavesAnOrdinaryClientFromTheSameAddressAnswered() throws {
        let scratch = try TempFolder("caps")
        try Data("hello".utf8).write(to: scratch.url.appendingPathComponent("a.txt"))
        let (serve, port) = try startServe(scratch.url, ["--max-connections", "150", "--max-connections-per-address", "100"])
        defer { _ = serve.terminate() }
        // Three times the per-address cap (and twice the global one), all from 127.0.0.1, opened and left silent.
        let flood = try (0..<300).map { _ in try IdleSocket(port: port) }
        // The kernel holds a silent connection for about a second before the server takes it in (deferred
        // accept). Once it has, the per-address cap has made it close the oldest 200 with an orderly end of stream.
        var fates = flood.map(\.fate)
        for _ in 0..<150 where fates.filter({ $0 == .closed }).count < 200 {
            Thread.sleep(forTimeInterval: 0.1)
            fates = flood.map(\.fate)
        }
        try #require(fates.filter { $0 == .closed }.count >= 200, "the server took in \(fates.filter { $0 == .closed }.count + 100) of 300")
        // The same address, an ordinary client: a new connection for each request, then one kept open.
        for _ in 0..<20 {
            let c = try RawConnection(port: port)
            try c.send(Self.get)
            let r = try c.response()
            #expect(r.status == 200 && r.text == "hello")
        }
        let kept = try RawConnection(port: port)
        for _ in 0..<20 {
            try kept.send(Self.get)
            #expect(try kept.response().status == 200)
        }
        // Room for the client was made the same way: nothing of the flood was reset.
        fates = flood.map(\.fate)
        #expect(!fates.contains(.reset))
        #expect(fates.filter { $0 == .closed }.count >= 200, "\(fates.filter { $0 == .closed }.count) of 300 closed")
        #expect(fates.allSatisfy { $0 == .closed || $0 == .open }, "\(Set(fates.map { "\($0)" }))")
    }

    @Test func aHeadDrippedSlowerThanTheHeaderTimeoutIsClosedWhileOthersAreServed() throws {
        let scratch = try TempFolder("slowloris")
        try Data("hello".utf8).write(to: scratch.url.appendingPathComponent("a.txt"))
        let (serve, port) = try startServe(scratch.url, ["--header-timeout", "1"])
        defer { _ = serve.terminate() }
        let drips = try (0..<20).map { _ in try IdleSocket(port: port) }
        var ended = Array(repeating: false, count: drips.count)
        var fates: [IdleSocket.Fate] = []
        for step in 0..<40 where ended.contains(false) {
            // One byte of a never-ending head every 200 ms keeps each socket active, so only the head deadline ends
            // it. A socket the server has ended gets nothing more (writing to it would draw a reset).
            for (i, d) in drips.enumerated() where !ended[i] { d.send(step == 0 ? "GET /dav/a.txt HTTP/1.1\r\n" : "X") }
            let c = try RawConnection(port: port)
            try c.send(Self.get)
            #expect(try c.response().status == 200)
            Thread.sleep(forTimeInterval: 0.2)
            fates = drips.map(\.fate)
            for (i, fate) in fates.enumerated() where fate != .open { ended[i] = true }
        }
        let closed = fates.allSatisfy { $0 == .closed }
        #expect(closed, "\(fates)")
    }
}

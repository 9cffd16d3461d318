import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on a free loopback port in front of `127.0.0.1:upstream` that flips one bit of the byte at
/// position `flipAt` of everything clients send (counted across connections, in order), once, and counts the
/// request bytes it forwards: a damaged wire and a meter of what the server received. `pause` (microseconds
/// per 64 KiB read) slows uploads down so a test can kill a client mid-body on any machine. `holdAfter` (a
/// request header's text) withholds every answer from the read that carries it on: the server acts on the
/// request but the client never hears back, as when a process dies just before the answer arrives.
/// `answerPause` does the same to answers (downloads), whose bytes ``bytesAnswered`` counts.
public final class FlipRelay: Sendable {
    public let port: UInt16
    private let listener: Int32
    private let upstream: UInt16
    private let flipAt: Int64?
    private let pause: UInt32
    private let holdAfter: [UInt8]?
    private let answerPause: UInt32
    private let state = Mutex((sent: Int64(0), flipped: false, open: [Int32](), holding: false, released: false, answered: Int64(0)))

    public init(upstream: UInt16, flipAt: Int64? = nil, pause: UInt32 = 0, holdAfter: String? = nil, answerPause: UInt32 = 0) throws {
        self.upstream = upstream
        self.answerPause = answerPause
        self.flipAt = flipAt
        self.pause = pause
        self.holdAfter = holdAfter.map { Array($0.utf8) }
        (listener, port) = try LoopbackListener.bound(backlog: 16)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Request bytes forwarded to the server so far (headers and bodies of every connection).
    public var bytesSent: Int64 { state.withLock { $0.sent } }
    /// Answer bytes passed to clients so far (heads and bodies of every connection).
    public var bytesAnswered: Int64 { state.withLock { $0.answered } }
    /// Whether the flip happened.
    public var flipped: Bool { state.withLock { $0.flipped } }
    /// Whether answers are being withheld (a request carried `holdAfter`).
    public var holding: Bool { state.withLock { $0.holding } }

    /// Passes answers again, and never holds them after this.
    public func release() { state.withLock { $0.holding = false; $0.released = true } }

    /// Cuts every open connection, both ways, and goes on accepting new ones: what the relay still held of a
    /// request never reaches the server. A killed client's socket is closed gracefully, so without this the
    /// bytes it had already written (loopback buffers hold several MiB) would still arrive whole.
    public func cut() {
        for fd in state.withLock({ $0.open }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Stops accepting and cuts every open connection.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in state.withLock({ $0.open }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit {
        stop()
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard let server = try? RawConnection.connectedSocket(port: upstream) else { close(client); continue }
            state.withLock { $0.open += [client, server] }
            Thread.detachNewThread { [self] in pump(from: client, to: server, request: true) }
            Thread.detachNewThread { [self] in pump(from: server, to: client, request: false) }
        }
    }

    private func pump(from: Int32, to: Int32, request: Bool) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            if request {
                damage(&buffer, n)
                if pause > 0 { usleep(pause) }
            } else if holding {
                continue
            } else {
                state.withLock { $0.answered += Int64(n) }
                if answerPause > 0 { usleep(answerPause) }
            }
            guard buffer.withUnsafeBytes({ RawConnection.sendAll(to, UnsafeRawBufferPointer(rebasing: $0[0 ..< n])) }) else { break }
        }
        shutdown(to, Int32(SHUT_WR))
        shutdown(from, Int32(SHUT_RD))
    }

    /// Counts `n` request bytes and flips the one at `flipAt` when it is among them.
    private func damage(_ buffer: inout [UInt8], _ n: Int) {
        state.withLock { s in
            if !s.flipped, let flipAt, flipAt >= s.sent, flipAt < s.sent + Int64(n) {
                buffer[Int(flipAt - s.sent)] ^= 0x10
                s.flipped = true
            }
            s.sent += Int64(n)
            if let holdAfter, !s.holding, !s.released, Self.contains(buffer[0 ..< n], holdAfter) { s.holding = true }
        }
    }

    private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        var i = haystack.startIndex
        while i + needle.count <= haystack.endIndex {
            if haystack[i] == needle[0], haystack[i ..< i + needle.count].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}

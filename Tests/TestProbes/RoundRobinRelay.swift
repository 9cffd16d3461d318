import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on a free loopback port in front of several servers on `127.0.0.1`, as a load balancer without
/// affinity: each new connection goes to the next upstream in turn, and one that refuses the connection (a server
/// that is down) is passed over for the next. It counts the request bytes it forwards, in all and to each
/// upstream, and can slow requests down (`pause` microseconds per 64 KiB read) so a test can act mid-body.
public final class RoundRobinRelay: Sendable {
    public let port: UInt16
    private let listener: Int32
    private let upstreams: [UInt16]
    private let pause: UInt32
    private struct State {
        var next = 0
        var sent: [Int64]
        var connections: [Int]
        var open: [Int32] = []
        /// Directions still running, per client socket.
        var running: [Int32: Int] = [:]
    }
    private let state: Mutex<State>

    public init(upstreams: [UInt16], pause: UInt32 = 0) throws {
        self.upstreams = upstreams
        self.pause = pause
        state = Mutex(State(sent: Array(repeating: 0, count: upstreams.count), connections: Array(repeating: 0, count: upstreams.count)))
        (listener, port) = try LoopbackListener.bound(backlog: 64)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Request bytes forwarded so far, to all upstreams.
    public var bytesSent: Int64 { state.withLock { $0.sent.reduce(0, +) } }
    /// Request bytes forwarded so far to each upstream, in the order given.
    public var bytesSentTo: [Int64] { state.withLock { $0.sent } }
    /// Connections made to each upstream so far, in the order given.
    public var connectionsTo: [Int] { state.withLock { $0.connections } }

    /// Stops accepting and cuts every open connection.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in state.withLock({ $0.open }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit {
        stop()
        close(listener)
    }

    /// A connection to the next upstream that takes one, and its index; nil when none does.
    private func connectNext() -> (fd: Int32, index: Int)? {
        for _ in upstreams.indices {
            let index = state.withLock { s -> Int in
                let i = s.next
                s.next = (s.next + 1) % upstreams.count
                return i
            }
            if let server = try? RawConnection.connectedSocket(port: upstreams[index]) { return (server, index) }
        }
        return nil
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard let (server, index) = connectNext() else { close(client); continue }
            state.withLock {
                $0.open += [client, server]
                $0.connections[index] += 1
                $0.running[client] = 2
            }
            Thread.detachNewThread { [self] in pump(from: client, to: server, upstream: index, client: client) }
            Thread.detachNewThread { [self] in pump(from: server, to: client, upstream: nil, client: client) }
        }
    }

    /// Copies one direction until it ends; `upstream` is set for requests (client to server), which are counted.
    private func pump(from: Int32, to: Int32, upstream: Int?, client: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            if let upstream {
                state.withLock { $0.sent[upstream] += Int64(n) }
                if pause > 0 { usleep(pause) }
            }
            guard buffer.withUnsafeBytes({ RawConnection.sendAll(to, UnsafeRawBufferPointer(rebasing: $0[0 ..< n])) }) else { break }
        }
        if upstream != nil {
            // The client is done sending: the server hears the end, and its answer still comes back.
            shutdown(to, Int32(SHUT_WR))
            shutdown(from, Int32(SHUT_RD))
        } else {
            // The server ended (or was killed): the client hears of it as a reset, as from a balancer that closes
            // the connection, even while it is sending a body and not reading.
            var reset = linger(l_onoff: 1, l_linger: 0)
            setsockopt(to, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            shutdown(to, Int32(SHUT_RDWR))
            shutdown(from, Int32(SHUT_RDWR))
        }
        // The second direction to end closes both sockets.
        let last = state.withLock { s -> Bool in
            s.running[client, default: 1] -= 1
            guard s.running[client] == 0 else { return false }
            s.running[client] = nil
            s.open.removeAll { $0 == from || $0 == to }
            return true
        }
        if last {
            close(from)
            close(to)
        }
    }
}

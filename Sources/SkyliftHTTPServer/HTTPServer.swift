import CMicroHTTPD
import Foundation
import SkyliftCore
import SkyliftSystem
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd's event loops: one loop per core, each polling many connections
/// with epoll; connections are kept open between requests.
///
/// Handlers see each request head first, on the loop, and answer at once, stream the body through an
/// ``HTTPBodyReceiver``, or hand work that blocks to the server's bounded pool of work threads
/// (``HTTPHeadDecision/offload(_:)``); the connection is suspended meanwhile and resumed when the work is done.
/// Responses stream from memory, a file descriptor (kernel sendfile) or a producer. An idle connection costs
/// its socket and a little memory, no thread. Limits as nginx has them close slow or idle connections, and a
/// connection past the connection caps makes room by closing the oldest idle one (see ``Configuration``).
public final class HTTPServer: Sendable {
    /// Listening, resource and limit settings.
    public struct Configuration: Sendable {
        /// Address to bind: an IPv4 or IPv6 literal, or `localhost`.
        public var host: String
        /// Port to bind; 0 picks a free one (read it back from ``HTTPServer/port``).
        public var port: UInt16
        /// Per-connection memory for the request head and read buffer. Heads larger than this get 431.
        /// libmicrohttpd clears all of it before each request on a kept-open connection, so bigger costs
        /// time per request and resident memory per idle connection (32 KiB, like nginx's header buffers).
        /// A request body is read in pieces of up to about three quarters of it.
        public var connectionMemory: Int
        /// Connection caps and deadlines.
        public var limits: HTTPLimits
        /// Event-loop threads; 0 means one per core.
        public var loops: Int
        /// Work threads for heads, bodies and producers that block (fsync, tree walks, waits for an origin).
        public var workThreads: Int
        /// The access log: one line per finished request at `info`, built only when that level is enabled.
        /// Lines never hold header values or queries.
        public var accessLog: Logger
        /// Certificate and key to speak HTTPS with; nil for plain HTTP.
        public var tls: TLSIdentity?
        /// Whether the kernel holds a new connection until its first bytes arrive before the loops accept it
        /// (Linux `TCP_DEFER_ACCEPT`). A client that connects and sends its request at once then wakes a loop
        /// once, not twice (for the accept, then for the request). A connection that sends nothing reaches the
        /// server about a second late, and the header timeout runs from then. Ignored where the system lacks it.
        public var deferAccept: Bool

        public init(host: String = "127.0.0.1", port: UInt16 = 0, connectionMemory: Int = 32 * 1024,
                    limits: HTTPLimits = HTTPLimits(), loops: Int = 0, workThreads: Int = 32,
                    accessLog: Logger = .disabled(label: "access"), tls: TLSIdentity? = nil, deferAccept: Bool = true) {
            self.host = host
            self.port = port
            self.connectionMemory = connectionMemory
            self.limits = limits
            self.loops = loops
            self.workThreads = workThreads
            self.accessLog = accessLog
            self.tls = tls
            self.deferAccept = deferAccept
        }
    }

    /// Stack of each event-loop thread: handlers run on them.
    static let threadStackSize = 8 << 20

    let configuration: Configuration
    let handler: any HTTPHandler
    let connections: ConnectionTable
    let suspensions: Suspensions
    private let daemon = Mutex<Running?>(nil)
    private let boundPort = Atomic<UInt16>(0)

    /// The started daemon and its deadline sweep; only touched in start/stop, which take the lock.
    private struct Running {
        var pointer: UInt
        var sweep: DispatchSourceTimer
    }

    public init(configuration: Configuration, handler: any HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
        let limits = configuration.limits
        connections = ConnectionTable(limits: .init(
            total: max(1, limits.connections), perAddress: max(1, limits.connectionsPerAddress),
            headerTimeout: UInt64(max(1, limits.headerTimeout)) * 1_000_000_000,
            keepAliveTimeout: UInt64(max(1, limits.keepAliveTimeout)) * 1_000_000_000))
        suspensions = Suspensions(threads: max(1, configuration.workThreads))
    }

    deinit { stop() }

    /// The port actually bound, once started.
    public var port: UInt16 { boundPort.load(ordering: .acquiring) }

    /// TCP connections accepted since start: with keep-alive, fewer than requests.
    public var connectionsAccepted: Int { connections.accepted }

    /// Connections open and counted against the caps now.
    public var connectionsOpen: Int { connections.open }

    /// Open connections with a request in progress now: at the caps, only these are never closed for room.
    public var connectionsBusy: Int { connections.busy }

    /// Connections closed by the server to admit newer ones or past the head deadline, since start.
    public var connectionsClosedForRoom: Int { connections.closedToMakeRoom }

    /// `http://host:port` (`https://` with TLS), with IPv6 hosts bracketed.
    public var baseURL: String {
        let h = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(configuration.tls == nil ? "http" : "https")://\(h):\(port)"
    }

    /// Binds and starts serving. Throws ``HTTPServerError`` when the address cannot be bound.
    public func start() throws {
        try daemon.withLock { current in
            guard current == nil else { return }
            let started = try startDaemon()
            let sweep = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "skylift.http.deadlines"))
            sweep.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(200))
            sweep.setEventHandler { [connections] in connections.sweep() }
            sweep.resume()
            current = Running(pointer: UInt(bitPattern: Int(bitPattern: UnsafeMutableRawPointer(started))), sweep: sweep)
            boundPort.store(skylift_mhd_bound_port(started), ordering: .releasing)
        }
    }

    private func startDaemon() throws -> OpaquePointer {
        let address = try SocketAddress(host: configuration.host, port: configuration.port)
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        if configuration.tls != nil { flags |= MHD_USE_TLS.rawValue }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let loops = configuration.loops > 0 ? configuration.loops : max(1, ProcessInfo.processInfo.activeProcessorCount)
        // libmicrohttpd splits its own limit among the loops; ours is enforced above it, so its limit only has to
        // leave room to accept, answer 503 and close.
        let hardLimit = DescriptorLimit.raise(toAtLeast: configuration.limits.connections * 2 + 1024) - 256
        // libmicrohttpd hands the PEM text to GnuTLS while starting, which copies it.
        let key = configuration.tls?.keyPEM, cert = configuration.tls?.certificatePEM
        let started: OpaquePointer? = address.withSockaddr { sa in
            withOptionalCString(key) { keyPEM in
                withOptionalCString(cert) { certPEM in
                    skylift_mhd_start(flags, sa, skyliftAccessHandler, context, skyliftRequestCompleted, context,
                                      skyliftConnectionNotify, context, configuration.connectionMemory,
                                      UInt32(max(64, hardLimit)), UInt32(max(1, configuration.limits.keepAliveTimeout)),
                                      Self.threadStackSize, UInt32(loops), 4096, keyPEM, certPEM)
                }
            }
        }
        guard let started else {
            if configuration.tls != nil, errno == 0 || errno == EINVAL {
                throw HTTPServerError.tlsRejected(host: configuration.host, port: configuration.port)
            }
            throw HTTPServerError.cannotListen(host: configuration.host, port: configuration.port, errno: errno)
        }
        // One second is the shortest the kernel keeps a silent connection. Failing costs only the saved wake-up,
        // so the server runs on without it.
        if configuration.deferAccept { _ = skylift_mhd_defer_accept(started, 1) }
        return started
    }

    /// Stops listening, lets work in progress finish (at most 30 s), and closes every connection. Safe to call
    /// more than once.
    public func stop() {
        daemon.withLock { current in
            guard let running = current, let pointer = UnsafeMutableRawPointer(bitPattern: running.pointer) else { return }
            running.sweep.cancel()
            // libmicrohttpd must not stop with a connection suspended; a connection whose work outlives the wait
            // is left suspended and the daemon is not stopped (its threads stay, but answer nothing more).
            if suspensions.stopAll() { MHD_stop_daemon(OpaquePointer(pointer)) }
            current = nil
        }
    }
}

/// Called by libmicrohttpd on a loop thread for each connection opened and closed: counts it against the
/// caps (closing an older idle one to make room) and keeps its slot in the socket context.
let skyliftConnectionNotify: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
    guard let cls, let socketContext else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    switch code {
    case MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_STARTED:
        guard let connection else { return }
        let slot = server.connections.opened(fd: skylift_mhd_connection_fd(connection),
                                             address: PeerAddress(skylift_mhd_client_address(connection)))
        socketContext.pointee = Unmanaged.passRetained(slot).toOpaque()
    case MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_CLOSED:
        guard let raw = socketContext.pointee else { return }
        socketContext.pointee = nil
        server.connections.closed(Unmanaged<ConnectionSlot>.fromOpaque(raw).takeRetainedValue())
    default:
        break
    }
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

/// Why the server could not start.
public enum HTTPServerError: Error, CustomStringConvertible, Equatable {
    case cannotListen(host: String, port: UInt16, errno: Int32)
    case badAddress(String)
    /// libmicrohttpd refused to start with the TLS certificate and key (unreadable PEM, or they do not match).
    case tlsRejected(host: String, port: UInt16)

    public var description: String {
        switch self {
        case let .cannotListen(host, port, code):
            let reason = code == 0 ? "" : ": \(String(cString: strerror(code)))"
            return "cannot listen on \(host):\(port)\(reason)"
        case let .badAddress(host):
            return "not an IP address or 'localhost': \(host)"
        case let .tlsRejected(host, port):
            return "cannot start TLS on \(host):\(port): the certificate or key was not accepted"
        }
    }
}

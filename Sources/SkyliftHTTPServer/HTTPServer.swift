import CMicroHTTPD
import Foundation
import SkyliftCore
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd, one thread per connection, connections kept open between requests.
///
/// Handlers see each request head first and choose to answer at once or to stream the body through an
/// ``HTTPBodyReceiver``; responses stream from memory, a file descriptor (kernel sendfile) or an
/// ``HTTPBodyProducer`` that may block until bytes exist. Because every connection owns a thread, a
/// blocking receiver or producer slows only its own client: that is the backpressure. An idle keep-alive
/// connection is a thread asleep in `poll`: it costs memory (its stack and buffer), no CPU.
/// (BENCHMARKS.md, "http", has the figures behind this choice against a thread pool with epoll.)
public final class HTTPServer: Sendable {
    /// Listening and resource settings.
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
        /// Most connections served at once. A connection past the limit gets one `503` with `Retry-After`
        /// and is closed, never dropped unanswered; past a further reserve the kernel queue holds it.
        public var connectionLimit: Int
        /// Seconds a connection may sit idle, between requests or within one, before it is closed.
        public var idleTimeout: Int
        /// The access log: one line per finished request at `info`, built only when that level is enabled.
        /// Lines never hold header values or queries.
        public var accessLog: Logger
        /// Certificate and key to speak HTTPS with; nil for plain HTTP.
        public var tls: TLSIdentity?

        public init(host: String = "127.0.0.1", port: UInt16 = 0, connectionMemory: Int = 32 * 1024,
                    connectionLimit: Int = 1024, idleTimeout: Int = 120,
                    accessLog: Logger = .disabled(label: "access"), tls: TLSIdentity? = nil) {
            self.host = host
            self.port = port
            self.connectionMemory = connectionMemory
            self.connectionLimit = connectionLimit
            self.idleTimeout = idleTimeout
            self.accessLog = accessLog
            self.tls = tls
        }
    }

    /// Stack of each connection thread. glibc keeps up to 40 MiB of freed stacks for new threads, so a
    /// small stack makes a connection's thread cheap to start; 2 MiB still leaves handlers deep recursion.
    static let threadStackSize = 2 << 20

    let configuration: Configuration
    let handler: any HTTPHandler
    let connections = ConnectionCount()
    // The daemon pointer is only touched in start/stop, which take the lock.
    private let daemon = Mutex<UInt?>(nil)
    private let boundPort = Atomic<UInt16>(0)

    public init(configuration: Configuration, handler: any HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
    }

    deinit { stop() }

    /// The port actually bound, once started.
    public var port: UInt16 { boundPort.load(ordering: .acquiring) }

    /// TCP connections accepted since start: with keep-alive, fewer than requests.
    public var connectionsAccepted: Int { connections.accepted }

    /// `http://host:port` (`https://` with TLS), with IPv6 hosts bracketed.
    public var baseURL: String {
        let h = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(configuration.tls == nil ? "http" : "https")://\(h):\(port)"
    }

    /// Binds and starts serving. Throws ``HTTPServerError`` when the address cannot be bound.
    public func start() throws {
        try daemon.withLock { current in
            guard current == nil else { return }
            let address = try SocketAddress(host: configuration.host, port: configuration.port)
            var flags = MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue
                | MHD_USE_POLL.rawValue
            if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
            if configuration.tls != nil { flags |= MHD_USE_TLS.rawValue }
            let context = Unmanaged.passUnretained(self).toOpaque()
            // libmicrohttpd hands the PEM text to GnuTLS while starting, which copies it.
            let key = configuration.tls?.keyPEM, cert = configuration.tls?.certificatePEM
            let started: OpaquePointer? = address.withSockaddr { sa in
                withOptionalCString(key) { keyPEM in
                    withOptionalCString(cert) { certPEM in
                        skylift_mhd_start(flags, sa, skyliftAccessHandler, context, skyliftRequestCompleted, context,
                                          skyliftConnectionNotify, context, configuration.connectionMemory,
                                          UInt32(ConnectionCount.hardLimit(configuration.connectionLimit)),
                                          UInt32(configuration.idleTimeout), Self.threadStackSize, keyPEM, certPEM)
                    }
                }
            }
            guard let started else {
                if configuration.tls != nil, errno == 0 || errno == EINVAL {
                    throw HTTPServerError.tlsRejected(host: configuration.host, port: configuration.port)
                }
                throw HTTPServerError.cannotListen(host: configuration.host, port: configuration.port, errno: errno)
            }
            current = UInt(bitPattern: Int(bitPattern: UnsafeMutableRawPointer(started)))
            boundPort.store(skylift_mhd_bound_port(started), ordering: .releasing)
        }
    }

    /// Stops listening and waits for connection threads to end. Safe to call more than once.
    public func stop() {
        daemon.withLock { current in
            guard let raw = current, let pointer = UnsafeMutableRawPointer(bitPattern: raw) else { return }
            MHD_stop_daemon(OpaquePointer(pointer))
            current = nil
        }
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

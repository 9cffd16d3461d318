import CMicroHTTPD
import Foundation
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd, one thread per connection.
///
/// Handlers see each request head first and choose to answer at once or to stream the body through an
/// ``HTTPBodyReceiver``; responses stream from memory, a file descriptor (kernel sendfile) or an
/// ``HTTPBodyProducer`` that may block until bytes exist. Because every connection owns a thread, a
/// blocking receiver or producer slows only its own client: that is the backpressure.
public final class HTTPServer: Sendable {
    /// Listening and resource settings.
    public struct Configuration: Sendable {
        /// Address to bind: an IPv4 or IPv6 literal, or `localhost`.
        public var host: String
        /// Port to bind; 0 picks a free one (read it back from ``HTTPServer/port``).
        public var port: UInt16
        /// Per-connection memory for the request head and read buffer. Heads larger than this get 431.
        public var connectionMemory: Int
        /// Most connections served at once.
        public var connectionLimit: Int
        /// Seconds a connection may sit idle.
        public var idleTimeout: Int
        /// Receives one line per finished request; nil for none. Lines never hold header values or queries.
        public var accessLog: (@Sendable (String) -> Void)?
        /// Certificate and key to speak HTTPS with; nil for plain HTTP.
        public var tls: TLSIdentity?

        public init(host: String = "127.0.0.1", port: UInt16 = 0, connectionMemory: Int = 256 * 1024,
                    connectionLimit: Int = 512, idleTimeout: Int = 120,
                    accessLog: (@Sendable (String) -> Void)? = nil, tls: TLSIdentity? = nil) {
            self.host = host
            self.port = port
            self.connectionMemory = connectionMemory
            self.connectionLimit = connectionLimit
            self.idleTimeout = idleTimeout
            self.accessLog = accessLog
            self.tls = tls
        }
    }

    let configuration: Configuration
    let handler: any HTTPHandler
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
                                          configuration.connectionMemory, UInt32(configuration.connectionLimit),
                                          UInt32(configuration.idleTimeout), 0, keyPEM, certPEM)
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

import Foundation
import SkyliftHTTPServer
import SkyliftRangeCache
import SkyliftCore
import Synchronization
import SkyliftSystem

/// A local HTTP front for cloud media: `GET http://<listen>/<path>` is answered from `<origin>/<path>`
/// through a `RangeLoader` and its on-disk `RangeCache`, with the origin's headers (a token) added on
/// the way out. Players that cannot send those headers play the local URL instead.
///
/// Range requests get full RFC 9110 treatment (206, 416 with `bytes */N`, `If-Range`, multipart ranges),
/// bytes stream out as they arrive, and many players can read at once. Origin headers never appear in logs,
/// errors or responses.
public final class StreamProxy: Sendable {
    /// What to proxy and where to listen.
    public struct Configuration: Sendable {
        /// Base URL of the origin; a request's path is appended to it.
        public var origin: URL
        /// Address to bind (loopback by default) and port (0 picks a free one).
        public var host: String
        public var port: UInt16
        /// Seconds a player's response may wait for bytes without any arriving before it is failed.
        public var stallTimeout: Double
        /// `Host` values answered: loopback ones and those listed. Any other gets 421, so a web page that
        /// re-points its own name at 127.0.0.1 (DNS rebinding) cannot read the origin through the proxy.
        public var allowedHosts: HostPolicy
        /// One line per notable event (origin failures, stalled responses); never header values or queries.
        public var logger: Logger
        /// The access log, a stream of its own: one line per request at `info`; not even built when disabled.
        public var accessLog: Logger
        /// Connection caps and deadlines for players' connections.
        public var limits: HTTPLimits = HTTPLimits()

        public init(origin: URL, host: String = "127.0.0.1", port: UInt16 = 8422, stallTimeout: Double = 60,
                    allowedHosts: HostPolicy = HostPolicy(), logger: Logger = .disabled(label: "proxy"),
                    accessLog: Logger = .disabled(label: "access")) {
            self.origin = origin
            self.host = host
            self.port = port
            self.stallTimeout = stallTimeout
            self.allowedHosts = allowedHosts
            self.logger = logger
            self.accessLog = accessLog
        }
    }

    public let configuration: Configuration
    /// The loader answering requests; usable in-process alongside the HTTP front.
    public let loader: RangeLoader
    let responses: ActiveResponses
    private let server: HTTPServer

    public init(configuration: Configuration, loader: RangeLoader) {
        self.configuration = configuration
        self.loader = loader
        let responses = ActiveResponses()
        self.responses = responses
        let handler = ProxyHandler(configuration: configuration, origin: OriginPrefix(configuration.origin), loader: loader,
                                   responses: responses)
        server = HTTPServer(configuration: .init(host: configuration.host, port: configuration.port,
                                                 limits: configuration.limits, accessLog: configuration.accessLog),
                            handler: HostFilter(policy: configuration.allowedHosts, next: handler))
    }

    /// Binds and starts serving; throws `HTTPServerError` when the address cannot be bound.
    public func start() throws {
        responses.reopen()
        try server.start()
    }

    /// Fails every response still waiting for bytes, stops listening, and closes the cache (flushing its maps
    /// and releasing the directory lock). A stopped proxy is not started again; make a new one.
    public func stop() {
        responses.stopAll()
        loader.shutdown()
        server.stop()
        loader.cache.close()
    }

    public var port: UInt16 { server.port }

    /// `http://host:port`.
    public var baseURL: String { server.baseURL }
}

/// Streamed responses in flight, so ``StreamProxy/stop()`` can wake producers blocked waiting for bytes
/// (the server joins connection threads on stop, and a sleeping producer would hold it forever).
final class ActiveResponses: Sendable {
    // Every request takes this lock twice: a ThreadMutex, which does not queue threads behind one another.
    private let state = ThreadMutex<(stopped: Bool, bodies: [ObjectIdentifier: LoaderBody])>((false, [:]))

    /// Registers a body; false when the proxy is stopping.
    func add(_ body: LoaderBody) -> Bool {
        state.withLock { s in
            guard !s.stopped else { return false }
            s.bodies[ObjectIdentifier(body)] = body
            return true
        }
    }

    func remove(_ body: LoaderBody) {
        _ = state.withLock { $0.bodies.removeValue(forKey: ObjectIdentifier(body)) }
    }

    func reopen() { state.withLock { $0.stopped = false } }

    func stopAll() {
        let bodies = state.withLock { s in
            s.stopped = true
            return Array(s.bodies.values)
        }
        for body in bodies { body.stop() }
    }
}

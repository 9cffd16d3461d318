#if canImport(CCurl)
import CCurl
import Foundation
import SkyliftCore
import SkyliftSystem

/// HTTP over libcurl: the Linux default, because URLSession on Linux moves bytes several times slower.
///
/// Each request runs a curl easy handle (`curl_easy_perform`) on one thread of one of the transport's two
/// executors, reused from request to request and ended after two idle seconds; a transfer that waits (on a
/// full response buffer, on a slow request body stream) holds up only its thread, never Swift's cooperative
/// pool. Requests whose body is a stream run on `skylift-curl-up`, all others on `skylift-curl`, each at most
/// ``Configuration/maxTransfers`` at once (more wait for a thread, in order). Two executors because a streamed
/// body may wait on another request of the same transport (`copy`: a PATCH reading its source through a GET),
/// never the other way round: a GET waits only for its own consumer. So however many uploads hold their
/// threads, the GETs they read from still get theirs.
/// Idle easy handles are kept for reuse, and with them their open connections.
public final class CurlTransport: HTTPTransport {
    public struct Configuration: Sendable {
        /// Response bytes held ahead of a slow consumer before the transfer waits.
        public var responseBufferSize: Int
        /// libcurl's receive and send buffer sizes.
        public var socketBufferSize: Int
        /// Idle easy handles (and their connections) kept for later requests.
        public var idleHandles: Int
        /// Extra trust for HTTPS servers (a CA file or a pinned key); nil for the system's CA list.
        public var tls: TLSTrust?
        /// Transfers running at once on each of the transport's two executors (streamed request bodies, and
        /// the rest); more wait for one to end. Threads are started only as transfers need them.
        public var maxTransfers: Int
        /// The kernel's receive buffer of each new connection (`SO_RCVBUF`); nil leaves it to autotuning. A
        /// downloader that may be killed caps it: bytes received but not yet read are fetched again.
        public var receiveWindow: Int?

        public init(responseBufferSize: Int = 4 << 20, socketBufferSize: Int = 256 * 1024, idleHandles: Int = 8,
                    tls: TLSTrust? = nil, maxTransfers: Int = 128, receiveWindow: Int? = nil) {
            self.receiveWindow = receiveWindow
            self.responseBufferSize = responseBufferSize
            self.socketBufferSize = socketBufferSize
            self.idleHandles = idleHandles
            self.tls = tls
            self.maxTransfers = maxTransfers
        }
    }

    public let configuration: Configuration
    private let pool: CurlHandlePool
    /// Where transfers run: `streaming` for requests with a streamed body, `executor` for the others.
    let executor: BlockingExecutor
    let streaming: BlockingExecutor

    public init(configuration: Configuration = .init()) {
        // Thread-safe and reference-counted in libcurl ≥ 7.84; must precede the first easy handle.
        curl_global_init(skylift_curl_global_default)
        self.configuration = configuration
        self.pool = CurlHandlePool(limit: configuration.idleHandles)
        self.executor = BlockingExecutor(name: "skylift-curl", threads: max(1, configuration.maxTransfers))
        self.streaming = BlockingExecutor(name: "skylift-curl-up", threads: max(1, configuration.maxTransfers))
    }

    public func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let url = Redaction.redactedURL(request.url)
        try Self.validate(request, redactedURL: url)
        let channel = ResponseChannel(url: url, capacity: configuration.responseBufferSize)
        let transfer = CurlTransfer(request: request, redactedURL: url, channel: channel, pool: pool,
                                    socketBufferSize: configuration.socketBufferSize, tls: configuration.tls,
                                    receiveWindow: configuration.receiveWindow)
        if case .stream = request.body { streaming.execute { transfer.run() } } else { executor.execute { transfer.run() } }
        let head = try await channel.head()
        return HTTPClientResponse(status: head.status, headers: head.headers, body: HTTPResponseBody(url: url, channel: channel))
    }

    /// Rejects what curl would send wrongly or not at all, naming the offending part but never a header value.
    static func validate(_ request: HTTPClientRequest, redactedURL url: URL) throws {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw HTTPClientError.invalidRequest(url: url, reason: "only http and https URLs are supported")
        }
        guard request.url.host?.isEmpty == false else {
            throw HTTPClientError.invalidRequest(url: url, reason: "URL has no host")
        }
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard !request.method.isEmpty, request.method.unicodeScalars.allSatisfy(token.contains) else {
            throw HTTPClientError.invalidRequest(url: url, reason: "invalid method \(request.method.debugDescription)")
        }
        for field in request.headers {
            guard !field.name.isEmpty, field.name.unicodeScalars.allSatisfy(token.contains) else {
                throw HTTPClientError.invalidRequest(url: url, reason: "invalid header name \(field.name.debugDescription)")
            }
            guard !field.value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw HTTPClientError.invalidRequest(url: url, reason: "header \(field.name) has a line break in its value")
            }
        }
        guard request.timeout > 0 else {
            throw HTTPClientError.invalidRequest(url: url, reason: "timeout must be positive")
        }
    }
}
#endif

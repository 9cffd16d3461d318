import Foundation
import SkyliftBlobStream
import SkyliftHTTPClient
import SkyliftCore
import SkyliftSystem
import Synchronization

/// An object on an HTTP server, read with Range requests and pinned to one version of it.
///
/// Opening sends `Range: bytes=0-0` to learn the length and entity tag; a server that answers 200 does not
/// do ranges and the open fails with `BlobStreamError.rangeNotSupported(url:)`. Reads then stream from
/// `Range: bytes=<offset>-` on one connection as long as the reader goes forward, with `If-Match` (and
/// `If-Range`) carrying the pinned strong tag, so a changed object fails with
/// `BlobStreamError.entityTagChanged(url:)` rather than mixing versions. When a connection drops or a
/// body ends early, the source reconnects at the current offset, up to `retry.maxAttempts` times in a row.
///
/// `headers` go on every request (authorization, for instance); they never appear in errors.
public final class HTTPSource: BlobSource {
    public let url: URL
    public let headers: HTTPHeaders
    public let transport: any HTTPTransport
    /// When set, the object must carry this entity tag at open.
    public let expectedEntityTag: String?
    /// Reconnects in a row (without progress) before a read fails.
    public let retry: RetryPolicy
    /// Seconds without progress before a request fails.
    public let timeout: Double
    public let name: String

    private struct Pin {
        var length: Int64
        var entityTag: String?
        var lastModified: String?
    }

    /// An open ranged response being consumed.
    private struct Connection {
        var body: HTTPResponseBody
        /// Offset of the first byte in `pending`.
        var offset: Int64
        var pending: [UInt8] = []
        var pendingStart = 0
    }

    private struct State {
        var pin: Pin?
        var connection: Connection?
        /// Responses opened so far; tests and logs use it to see reconnects.
        var requests = 0
    }

    private let state = Mutex(State())
    /// Where the source's async work runs, so blocking callers never wait on the shared concurrency pool. One
    /// thread: a source is read by one reader at a time, and the thread ends when the source is idle.
    private let executor = BlockingExecutor(name: "skylift-httpsrc", threads: 1)

    public init(url: URL, headers: HTTPHeaders = [:], transport: any HTTPTransport,
                expectedEntityTag: String? = nil, retry: RetryPolicy = RetryPolicy(maxAttempts: 5, baseDelay: 0.05, maxDelay: 2),
                timeout: Double = 60) {
        self.url = url
        self.headers = headers
        self.transport = transport
        self.expectedEntityTag = expectedEntityTag
        self.retry = retry
        self.timeout = timeout
        self.name = Self.displayName(url)
    }

    /// The URL without credentials or query, which may hold signatures.
    static func displayName(_ url: URL) -> String { Redaction.url(url, query: .drop) }

    /// Ranged requests sent so far (the probe at open included).
    public var requestCount: Int { state.withLock { $0.requests } }

    public func open(completion: @escaping @Sendable (Result<BlobInfo, any Error>) -> Void) {
        close()
        Task(executorPreference: executor) {
            do {
                completion(.success(try await self.probe()))
            } catch {
                completion(.failure(error))
            }
        }
    }

    private func probe() async throws -> BlobInfo {
        var extra: HTTPHeaders = ["Range": "bytes=0-0"]
        if let expectedEntityTag, !EntityTag.isWeak(expectedEntityTag) { extra.set("If-Match", expectedEntityTag) }
        let response = try await send(extra)
        defer { response.body.cancel() }
        let tag = response.headers["ETag"]
        if let expectedEntityTag, response.status == 412 || tag.map({ !EntityTag.weakMatch($0, expectedEntityTag) }) ?? true {
            throw BlobStreamError.entityTagChanged(url: name)
        }
        let length: Int64
        switch response.status {
        case 206:
            guard let range = response.headers["Content-Range"].flatMap(ContentRange.init), let total = range.total else {
                throw BlobStreamError.badResponse(url: name, reason: "206 without a usable Content-Range")
            }
            length = total
        case 416:
            // Only an empty object has no byte 0.
            guard let range = response.headers["Content-Range"].flatMap(ContentRange.init), range.total == 0 else {
                throw BlobStreamError.httpStatus(url: name, status: 416)
            }
            length = 0
        case 200:
            throw BlobStreamError.rangeNotSupported(url: name)
        default:
            throw BlobStreamError.httpStatus(url: name, status: response.status)
        }
        let pin = Pin(length: length, entityTag: tag, lastModified: response.headers["Last-Modified"])
        state.withLock { $0.pin = pin }
        let identity = "http:\(tag ?? "no-etag"):\(pin.lastModified ?? "-"):\(length)"
        return BlobInfo(length: length, identity: BlobIdentity(identity), contentType: response.headers["Content-Type"])
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard let pin = state.withLock({ $0.pin }) else { throw BlobStreamError.notOpen(name: name) }
        guard offset < pin.length, buffer.count > 0 else { return 0 }
        var connection = state.withLock { s -> Connection? in
            defer { s.connection = nil }
            return s.connection
        }
        if let c = connection, c.offset != offset {
            c.body.cancel()
            connection = nil
        }
        var failures = 0
        while true {
            do {
                if connection == nil { connection = try blocking { try await self.connect(at: offset, pin: pin) } }
                guard var c = connection else { continue }
                if c.pendingStart >= c.pending.count {
                    let body = c.body
                    guard let chunk = try blocking({ () -> [UInt8]? in
                        var iterator = body.makeAsyncIterator()
                        return try await iterator.next()
                    }) else {
                        throw HTTPClientError.transferFailed(url: url, reason: "body ended at byte \(c.offset) of \(pin.length)")
                    }
                    c.pending = chunk
                    c.pendingStart = 0
                }
                let n = min(buffer.count, c.pending.count - c.pendingStart)
                c.pending.withUnsafeBytes { src in
                    UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< n])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: src[c.pendingStart ..< c.pendingStart + n]))
                }
                c.pendingStart += n
                c.offset += Int64(n)
                let keep = c
                state.withLock { $0.connection = keep }
                return n
            } catch let error as BlobStreamError {
                connection?.body.cancel()
                throw error
            } catch {
                // A dropped connection: start again at the same offset, a bounded number of times.
                connection?.body.cancel()
                connection = nil
                failures += 1
                guard retry.allowsAnother(after: failures) else {
                    throw BlobStreamError.transport(url: name, reason: "\(error)")
                }
                Thread.sleep(forTimeInterval: retry.delay(beforeRetry: failures))
            }
        }
    }

    /// Opens `bytes=<offset>-` pinned to the version seen at open.
    private func connect(at offset: Int64, pin: Pin) async throws -> Connection {
        var extra: HTTPHeaders = ["Range": "bytes=\(offset)-"]
        if let tag = pin.entityTag, !EntityTag.isWeak(tag) {
            extra.set("If-Match", tag)
            extra.set("If-Range", tag)
        } else if let date = pin.lastModified {
            extra.set("If-Unmodified-Since", date)
        }
        let response = try await send(extra)
        let tag = response.headers["ETag"]
        let sameTag: Bool = switch (pin.entityTag, tag) {
        case let (pinned?, now?): EntityTag.weakMatch(pinned, now)
        case (nil, nil): true
        default: false
        }
        switch response.status {
        case 206 where sameTag:
            guard let range = response.headers["Content-Range"].flatMap(ContentRange.init),
                  range.first == offset, range.total == pin.length else {
                response.body.cancel()
                throw BlobStreamError.entityTagChanged(url: name)
            }
            return Connection(body: response.body, offset: offset)
        case 206, 412:
            response.body.cancel()
            throw BlobStreamError.entityTagChanged(url: name)
        case 200:
            response.body.cancel()
            throw sameTag ? BlobStreamError.rangeNotSupported(url: name) : BlobStreamError.entityTagChanged(url: name)
        default:
            response.body.cancel()
            throw BlobStreamError.httpStatus(url: name, status: response.status)
        }
    }

    private func send(_ extra: HTTPHeaders) async throws -> HTTPClientResponse {
        var all = headers
        for field in extra { all.set(field.name, field.value) }
        state.withLock { $0.requests += 1 }
        return try await transport.execute(HTTPClientRequest(method: "GET", url: url, headers: all, timeout: timeout))
    }

    public func close() {
        let connection = state.withLock { s -> Connection? in
            defer { s.connection = nil }
            return s.connection
        }
        connection?.body.cancel()
    }

    /// Runs async work from the blocking read path, on the source's own executor.
    private func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        try executor.runBlocking(work)
    }
}

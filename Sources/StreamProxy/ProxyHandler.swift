import Dispatch
import Foundation
import HTTPServer
import RangeCache
import SkyliftCore
import SkyliftSystem
import Synchronization

/// Answers player requests: maps the path onto the origin, opens the resource through the loader, and
/// builds the status, headers and body for the request's `Range`/`If-Range`.
struct ProxyHandler: HTTPHandler {
    let configuration: StreamProxy.Configuration
    let loader: RangeLoader
    let responses: ActiveResponses

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .respond(.text(405, "only GET and HEAD are proxied", headers: ["Allow": "GET, HEAD"]))
        }
        let url: URL
        switch originURL(request) {
        case let .success(u): url = u
        case let .failure(refusal): return .respond(.text(400, "\(refusal); only paths under the origin are proxied"))
        }
        let shown = LogText.escaped(request.path)
        let resource: RangeResource
        do {
            resource = try loader.openIfFresh(url)
                ?? Self.waitFor(on: loader.executor, timeout: configuration.stallTimeout) { try await loader.open(url) }
        } catch let error as RangeOriginError {
            configuration.logger.warning("proxy: \(shown): \(error)")
            if let status = error.status, (400..<500).contains(status) {
                return .respond(.text(status, "origin answered \(status) for \(shown)"))
            }
            return .respond(.text(502, "origin failed for \(shown)"))
        } catch let error as ProxyTimeout {
            configuration.logger.warning("proxy: \(shown): \(error)")
            return .respond(.text(504, "origin did not answer in time for \(shown)"))
        } catch {
            configuration.logger.warning("proxy: \(shown): \(error)")
            return .respond(.text(502, "origin failed for \(shown)"))
        }
        return .respond(response(request, resource))
    }

    /// `<origin><path>[?query]`, confined under the origin's prefix (see ``ProxyPath``).
    func originURL(_ request: HTTPRequest) -> Result<URL, ProxyPath.Refusal> {
        let path: String
        switch ProxyPath.checked(request.path) {
        case let .success(p): path = p
        case let .failure(refusal): return .failure(refusal)
        }
        var base = configuration.origin.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        // The checks above make this hold; verified on the parsed URL anyway, as it is what libcurl sends.
        guard let url = URL(string: base + path + (request.query.map { "?" + $0 } ?? "")),
              let parts = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let origin = URLComponents(url: configuration.origin, resolvingAgainstBaseURL: false),
              parts.scheme == origin.scheme, parts.host == origin.host, parts.port == origin.port,
              parts.percentEncodedPath.hasPrefix(String(origin.percentEncodedPath.reversed().drop { $0 == "/" }.reversed()) + "/")
        else { return .failure(.notUnderOrigin) }
        return .success(url)
    }

    func response(_ request: HTTPRequest, _ resource: RangeResource) -> HTTPResponse {
        let info = resource.info
        let length = resource.length
        let type = info.contentType ?? MediaType.forPath(request.path)
        var headers: HTTPHeaders = ["Accept-Ranges": "bytes"]
        if let etag = info.etag { headers.add("ETag", etag) }
        if let date = info.lastModified { headers.add("Last-Modified", HTTPDate.format(date)) }
        if let status = Self.preconditionStatus(request, info) {
            return HTTPResponse(status: status, headers: headers)
        }
        var ranges: [ByteRange]?
        if let value = request.headers["Range"], let parsed = RangeHeader(value),
           request.headers["If-Range"].map({ Self.ifRangeHolds($0, info) }) ?? true {
            switch RangePlan.plan(parsed, length: length) {
            case .whole: break
            case .unsatisfiable:
                headers.add("Content-Range", "bytes */\(length)")
                return .text(416, "range not satisfiable: the resource has \(length) bytes", headers: headers)
            case let .partial(r): ranges = r
            }
        }
        let pieces: [LoaderBody.Piece]
        let status: Int
        switch ranges {
        case nil:
            status = 200
            headers.add("Content-Type", type)
            pieces = length > 0 ? [.range(ByteRange(offset: 0, length: length))] : []
        case let .some(r) where r.count == 1:
            status = 206
            headers.add("Content-Type", type)
            headers.add("Content-Range", r[0].contentRange(total: length))
            pieces = [.range(r[0])]
        case let .some(r):
            status = 206
            let boundary = "skylift-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            headers.add("Content-Type", "multipart/byteranges; boundary=\(boundary)")
            pieces = Self.multipart(r, total: length, type: type, boundary: boundary)
        }
        let body = LoaderBody(resource: resource, pieces: pieces, path: request.path,
                              stallTimeout: configuration.stallTimeout, responses: responses, logger: configuration.logger)
        guard responses.add(body) else { return .text(503, "proxy is stopping") }
        return HTTPResponse(status: status, headers: headers, body: .stream(length: body.length, producer: body))
    }

    /// `multipart/byteranges` (RFC 9110 §14.6): each part's head as text, then its bytes.
    static func multipart(_ ranges: [ByteRange], total: Int64, type: String, boundary: String) -> [LoaderBody.Piece] {
        var pieces: [LoaderBody.Piece] = []
        for (i, r) in ranges.enumerated() {
            let head = (i == 0 ? "" : "\r\n") + "--\(boundary)\r\nContent-Type: \(type)\r\n"
                + "Content-Range: \(r.contentRange(total: total))\r\n\r\n"
            pieces.append(.text(Array(head.utf8)))
            pieces.append(.range(r))
        }
        pieces.append(.text(Array("\r\n--\(boundary)--\r\n".utf8)))
        return pieces
    }

    /// `If-Range` holds when it names the current representation: a strong ETag match, or exactly its
    /// Last-Modified date (RFC 9110 §13.1.5).
    static func ifRangeHolds(_ value: String, _ info: ContentInfo) -> Bool {
        let v = value.trimmingSpaces()
        if v.hasPrefix("\"") || v.hasPrefix("W/") {
            return info.etag.map { EntityTag.strongMatch(v, $0) } ?? false
        }
        guard let date = HTTPDate.parse(v), let modified = info.lastModified else { return false }
        return HTTPDate.seconds(date) == HTTPDate.seconds(modified)
    }

    /// 412 for a failed `If-Match`, 304 for a matching `If-None-Match`; nil to go on.
    static func preconditionStatus(_ request: HTTPRequest, _ info: ContentInfo) -> Int? {
        if let value = request.headers["If-Match"] {
            let tags = EntityTag.parseList(value)
            let holds = tags.map { list in info.etag.map { e in list.contains { EntityTag.strongMatch($0, e) } } ?? false } ?? true
            if !holds { return 412 }
        }
        if let value = request.headers["If-None-Match"] {
            let tags = EntityTag.parseList(value)
            let matches = tags.map { list in info.etag.map { e in list.contains { EntityTag.weakMatch($0, e) } } ?? false } ?? true
            if matches { return 304 }
        }
        return nil
    }

    /// Runs async work from a connection thread and waits for it, at most `timeout` seconds. Each connection
    /// has its own thread, so blocking it holds up only that player.
    static func waitFor<T: Sendable>(on executor: BlockingExecutor, timeout: Double,
                                     _ work: @escaping @Sendable () async throws -> T) throws -> T {
        do { return try executor.runBlocking(timeout: timeout, work) } catch is BlockingExecutor.TimedOut { throw ProxyTimeout() }
    }
}

/// The origin did not describe a resource within the stall timeout.
struct ProxyTimeout: Error, CustomStringConvertible {
    var description: String { "origin did not answer in time" }
}

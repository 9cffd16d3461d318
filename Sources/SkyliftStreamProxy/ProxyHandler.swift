import Dispatch
import Foundation
import SkyliftHTTPServer
import SkyliftRangeCache
import SkyliftCore
import SkyliftSystem
import Synchronization

/// Answers player requests: maps the path onto the origin, opens the resource through the loader, and
/// builds the status, headers and body for the request's `Range`/`If-Range`.
struct ProxyHandler: HTTPHandler {
    let configuration: StreamProxy.Configuration
    /// `configuration.origin`, parsed once.
    let origin: OriginPrefix
    let loader: RangeLoader
    let responses: ActiveResponses
    /// Request targets already checked, with their origin URL: a player asking for ranges of one file again and
    /// again does not have its path checked and a URL parsed and verified for every range (a tenth of the proxy's
    /// CPU for small warm ranges). A target maps to one URL for the life of the proxy, so an entry never goes stale.
    let urls = BoundedMemo<String, URL>(capacity: 4096)
    /// Longer targets are checked every time: with this, the table holds at most a few MiB.
    static let maxRememberedTarget = 512

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .respond(.text(405, "only GET and HEAD are proxied", headers: ["Allow": "GET, HEAD"]))
        }
        let url: URL
        switch originURL(request) {
        case let .success(u): url = u
        case let .failure(refusal): return .respond(.text(400, "\(refusal); only paths under the origin are proxied"))
        }
        // A fresh resource is answered on the event loop; anything that waits for the origin is offloaded.
        if let resource = loader.openIfFresh(url) { return .respond(response(request, resource)) }
        return .offload { self.openingOrigin(request, url) }
    }

    /// Opens `url` at the origin (a work thread waits for it, at most the stall timeout) and answers.
    private func openingOrigin(_ request: HTTPRequest, _ url: URL) -> HTTPHeadDecision {
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

    /// `<origin><path>[?query]`, confined under the origin's prefix (see ``ProxyPath``); targets seen before come
    /// from ``urls``.
    func originURL(_ request: HTTPRequest) -> Result<URL, ProxyPath.Refusal> {
        let target = request.query.map { request.path + "?" + $0 } ?? request.path
        if let known = urls[target] { return .success(known) }
        let checked = checkedOriginURL(request)
        if case let .success(url) = checked, target.utf8.count <= Self.maxRememberedTarget { urls.remember(url, for: target) }
        return checked
    }

    private func checkedOriginURL(_ request: HTTPRequest) -> Result<URL, ProxyPath.Refusal> {
        let path: String
        switch ProxyPath.checked(request.path) {
        case let .success(p): path = p
        case let .failure(refusal): return .failure(refusal)
        }
        // The checks above make this hold; verified on the parsed URL anyway, as it is what libcurl sends.
        guard let url = URL(string: origin.base + path + (request.query.map { "?" + $0 } ?? "")), origin.contains(url)
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
        let outcome = ConditionalRequest.evaluate(method: request.method, headers: request.headers, current: info.validators)
        if let status = outcome.status {
            return HTTPResponse(status: status, headers: headers)
        }
        let answer = RangedResponse(requestHeaders: request.headers, rangeApplies: outcome == .proceed(rangeApplies: true),
                                    length: length, contentType: type)
        for field in answer.headers { headers.add(field.name, field.value) }
        // A small range the cache holds goes out with its head in one write, read without a reader or a body.
        if request.method != "HEAD", let bytes = Self.cachedBody(answer.body, of: resource) {
            return HTTPResponse(status: answer.status, headers: headers, body: .bytes(bytes))
        }
        let pieces: [LoaderBody.Piece]
        switch answer.body {
        case .unsatisfiable:
            return .text(416, "range not satisfiable: the resource has \(length) bytes", headers: headers)
        case let .whole(r), let .single(r):
            pieces = r.isEmpty ? [] : [.range(r)]
        case let .multipart(parts, _):
            pieces = parts.map { part in
                switch part {
                case let .text(bytes): .text(bytes)
                case let .range(r): .range(r)
                }
            }
        }
        let body = LoaderBody(resource: resource, pieces: pieces, path: request.path,
                              stallTimeout: configuration.stallTimeout, responses: responses, logger: configuration.logger)
        guard responses.add(body) else { return .text(503, "proxy is stopping") }
        // A small answer already in the cache goes out with its head in one write.
        if request.method != "HEAD", let bytes = body.readNow(limit: Self.oneWrite) {
            body.close()
            return HTTPResponse(status: answer.status, headers: headers, body: .bytes(bytes))
        }
        return HTTPResponse(status: answer.status, headers: headers, body: .stream(length: body.length, producer: body))
    }

    /// Answers up to this size are sent with their head in one write when all their bytes are at hand.
    static let oneWrite = 16 << 10

    /// The bytes of a whole or single-range body of at most ``oneWrite`` bytes that the cache holds now.
    private static func cachedBody(_ body: RangedResponse.Body, of resource: RangeResource) -> [UInt8]? {
        switch body {
        case let .whole(r), let .single(r): resource.cachedBytes(r, limit: oneWrite)
        case .multipart, .unsatisfiable: nil
        }
    }

    /// Runs async work from a server work thread and waits for it, at most `timeout` seconds; the event loops
    /// never call this (the head that needs it is offloaded).
    static func waitFor<T: Sendable>(on executor: BlockingExecutor, timeout: Double,
                                     _ work: @escaping @Sendable () async throws -> T) throws -> T {
        do { return try executor.runBlocking(timeout: timeout, work) } catch is BlockingExecutor.TimedOut { throw ProxyTimeout() }
    }
}

/// The origin did not describe a resource within the stall timeout.
struct ProxyTimeout: Error, CustomStringConvertible {
    var description: String { "origin did not answer in time" }
}

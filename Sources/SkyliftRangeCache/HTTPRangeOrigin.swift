import Foundation
import SkyliftHTTPClient
import SkyliftCore

/// A ``RangeOrigin`` over any HTTP server: `HEAD` (falling back to `GET bytes=0-0`) for content info, then
/// `GET` with `Range`, `If-Range` on the known validator and `Accept-Encoding: identity`.
///
/// The configured headers (an `Authorization` token, a cookie) go on every request and nowhere else: not in
/// errors, not in descriptions.
public struct HTTPRangeOrigin: RangeOrigin, CustomStringConvertible {
    let transport: any HTTPTransport
    let headers: HTTPHeaders
    let timeout: Double

    /// - Parameters:
    ///   - transport: what sends the requests (libcurl by default).
    ///   - headers: sent with every origin request.
    ///   - timeout: seconds without progress before an origin request fails.
    public init(transport: any HTTPTransport = makeDefaultTransport(), headers: HTTPHeaders = [:], timeout: Double = 30) {
        self.transport = transport
        self.headers = headers
        self.timeout = timeout
    }

    public var description: String { "HTTPRangeOrigin(headers: \(headers.fields.map(\.name)))" }

    public func contentInfo(of url: URL) async throws -> ContentInfo {
        let head = try await send("HEAD", url, extra: [:])
        head.body.cancel()
        if (200..<300).contains(head.status), let info = Self.info(head, url: url), info.length != nil {
            return info
        }
        if [401, 404, 407, 410].contains(head.status) { throw RangeOriginError.status(head.status, url: display(url)) }
        // HEAD refused (405, 501, a presigned GET-only URL's 403) or without a length: ask for one byte.
        let probe = try await send("GET", url, extra: ["Range": "bytes=0-0"])
        probe.body.cancel()
        guard (200..<300).contains(probe.status) else {
            throw RangeOriginError.status(probe.status, url: display(url))
        }
        guard let info = Self.info(probe, url: url), info.length != nil else {
            throw RangeOriginError.badResponse(url: display(url), reason: "no Content-Length or Content-Range total")
        }
        return info
    }

    public func read(_ url: URL, range: ByteRange, expected: ContentInfo) async throws -> OriginBody {
        var extra: HTTPHeaders = ["Range": "bytes=\(range.offset)-\(range.last)"]
        if let etag = expected.etag, !EntityTag.isWeak(etag) {
            extra.add("If-Range", etag)
        } else if let date = expected.lastModified {
            extra.add("If-Range", HTTPDate.format(date))
        }
        let response = try await send("GET", url, extra: extra)
        switch response.status {
        case 200, 206:
            guard let info = Self.info(response, url: url), info.length != nil else {
                response.body.cancel()
                throw RangeOriginError.badResponse(url: display(url), reason: "no length in the response")
            }
            if let coding = response.headers["Content-Encoding"], coding.lowercased() != "identity" {
                response.body.cancel()
                throw RangeOriginError.badResponse(url: display(url), reason: "body is \(coding)-encoded")
            }
            var offset: Int64 = 0
            if response.status == 206 {
                guard let first = response.headers["Content-Range"].flatMap(ContentRange.init)?.first else {
                    response.body.cancel()
                    throw RangeOriginError.badResponse(url: display(url), reason: "206 without a single Content-Range")
                }
                offset = first
            }
            return OriginBody(info: info, offset: offset, chunks: response.body)
        case 412, 416:
            response.body.cancel()
            throw RangeOriginError.changed(url: display(url))
        default:
            response.body.cancel()
            throw RangeOriginError.status(response.status, url: display(url))
        }
    }

    private func send(_ method: String, _ url: URL, extra: HTTPHeaders) async throws -> HTTPClientResponse {
        var h = headers
        for field in extra { h.set(field.name, field.value) }
        h.set("Accept-Encoding", "identity")
        do {
            return try await transport.execute(HTTPClientRequest(method: method, url: url, headers: h, timeout: timeout))
        } catch let error as HTTPClientError {
            if error == .cancelled { throw CancellationError() }
            throw RangeOriginError.unreachable(url: display(url), reason: "\(error)")
        }
    }

    private func display(_ url: URL) -> String { RangeOriginError.display(url) }

    /// Content info from a response head; the length is the whole representation's, from `Content-Range`'s
    /// total on a 206.
    static func info(_ response: HTTPClientResponse, url: URL) -> ContentInfo? {
        let h = response.headers
        var length: Int64?
        if response.status == 206 {
            length = h["Content-Range"].flatMap(ContentRange.init)?.total
        } else {
            length = h.integer("Content-Length")
        }
        if let l = length, l > RangeCache.maxResourceLength { length = nil }
        return ContentInfo(length: length, contentType: h["Content-Type"], etag: h["ETag"],
                           lastModified: h["Last-Modified"].flatMap(HTTPDate.parse))
    }
}

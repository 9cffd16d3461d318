import Foundation
import SkyliftCore
import SkyliftHTTPServer

/// GET and HEAD of files: validators, conditional requests and byte ranges (RFC 9110 §13, §14), over either store.
///
/// A whole file or a single range is sent as the store gives it (the folder store's from the descriptor by the
/// kernel); several ranges become a `multipart/byteranges` body produced piece by piece.
struct RangedGet: Sendable {
    let backend: any StoreBackend
    /// What the server adds to every answer after this one (confinement, the response policy), applied to a head
    /// before it is kept for reuse: a reused head then passes those steps unchanged, with nothing copied.
    var finish: @Sendable (HTTPResponse) -> HTTPResponse = { $0 }

    func respond(_ request: HTTPRequest, path: StoragePath) -> HTTPResponse {
        switch backend.open(path) {
        case let .file(file): answer(request, file: file, name: path.name)
        case .folder: listing(path)
        case .missing: .text(404, "not found: \(path.relative)")
        case let .failed(response): response
        }
    }

    /// The answer from the open `file` (closed here, or handed to the response).
    private func answer(_ request: HTTPRequest, file: any StoredFile, name: String) -> HTTPResponse {
        // A file answered from memory, asked for plainly again: the head made the first time, as it was.
        let plain = (file as? CachedFile).flatMap { Self.asksPlainly(request) ? $0.entry : nil }
        if let plain, let head = plain.plainHead.withLock({ $0 }) {
            var response = HTTPResponse(status: 200, headers: head, body: .bytes(plain.bytes))
            response.reuse = plain.plainAnswer
            return response
        }
        let item = file.item
        var headers = HTTPHeaders()
        if let etag = item.etag { headers.add("ETag", etag) }
        if let lastModified = item.lastModified { headers.add("Last-Modified", HTTPDate.format(min(lastModified, Date()))) }
        headers.add("Accept-Ranges", "bytes")
        addReprDigest(request, file: file, to: &headers)
        let outcome = ConditionalRequest.evaluate(method: request.method, headers: request.headers, current: item.validators)
        if let status = outcome.status {
            file.close()
            return HTTPResponse(status: status, headers: headers)
        }
        let answer = RangedResponse(requestHeaders: request.headers, rangeApplies: outcome == .proceed(rangeApplies: true),
                                    length: item.size, contentType: MediaType.forPath(name))
        for field in answer.headers { headers.add(field.name, field.value) }
        switch answer.body {
        case .unsatisfiable:
            file.close()
            return .text(416, "range not satisfiable for \(item.size) bytes", headers: headers)
        case let .whole(r), let .single(r):
            if request.method != "HEAD", let bytes = file.smallBytes(r) {
                file.close()
                // Kept unless Last-Modified was clamped to now (a file dated in the future), which changes.
                if let plain, answer.status == 200, let modified = item.lastModified, modified <= Date() {
                    let finished = finish(HTTPResponse(status: 200, headers: headers, body: .bytes(bytes)))
                    plain.plainHead.withLock { $0 = finished.headers }
                    return finished
                }
                return HTTPResponse(status: answer.status, headers: headers, body: .bytes(bytes))
            }
            return HTTPResponse(status: answer.status, headers: headers, body: file.body(r))
        case let .multipart(parts, length):
            return HTTPResponse(status: answer.status, headers: headers, body: file.multipartBody(parts, length: length))
        }
    }

    /// No header that could change a GET's answer for the same file: no range, no precondition, no digest
    /// preference. One pass over the fields.
    static func asksPlainly(_ request: HTTPRequest) -> Bool {
        guard request.method == "GET" || request.method == "HEAD" else { return false }
        for field in request.headers.fields {
            var name = field.name.utf8.makeIterator()
            // `If` (WebDAV) and every `If-*` precondition.
            if let a = name.next(), let b = name.next(), a | 0x20 == UInt8(ascii: "i"), b | 0x20 == UInt8(ascii: "f") { return false }
            if HTTPHeaders.namesMatch(field.name, "Range") || HTTPHeaders.namesMatch(field.name, "Want-Repr-Digest") { return false }
        }
        return true
    }

    /// A plain HTML index, so a browser pointed at a folder sees its contents: what GET would serve, nothing else.
    private func listing(_ path: StoragePath) -> HTTPResponse {
        let members: [StoredMember]
        do { members = try backend.members(of: path) } catch { return error.response }
        var html = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>\(HTMLText.escaped(path.relative))</title></head><body><ul>\n"
        // Relative links: the index stays right wherever the folder is mounted (behind `skylift proxy`, a prefix).
        if !path.isRoot { html += "<li><a href=\"../\">../</a></li>\n" }
        for member in members {
            let isDir = member.item.isFolder, name = member.path.name
            let href = "./" + (name.addingPercentEncoding(withAllowedCharacters: .hrefSegment) ?? "") + (isDir ? "/" : "")
            html += "<li><a href=\"\(HTMLText.escaped(href))\">\(HTMLText.escaped(name))\(isDir ? "/" : "")</a></li>\n"
        }
        html += "</ul></body></html>\n"
        return HTTPResponse(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: .bytes(Array(html.utf8)))
    }
}

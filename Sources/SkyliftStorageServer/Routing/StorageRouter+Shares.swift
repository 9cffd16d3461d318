import Foundation
import SkyliftCore
import SkyliftHTTPServer
import SkyliftWebApp

/// Read-only share links at `/s/<link>/…`: GET and HEAD of the shared file, or of the shared folder's
/// members (the browse page, `?list`, `?zip`, files with ranges), and nothing else: no parent, no writes, no
/// WebDAV. `POST /api/share` makes one for the signed-in app.
extension StorageRouter {
    func shared(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "a share link is read-only", headers: ["Allow": "GET, HEAD"])
        }
        let rest = request.path.dropFirst(3)
        let token = String(rest.prefix { $0 != "/" })
        let below = String(rest.dropFirst(token.count))
        guard let shares = web.shares else { return .text(403, "share links are not available") }
        let share: Share
        switch shares.check(token) {
        case .refused: return .text(403, "this share link was revoked or is not valid")
        case .expired: return .text(410, "this share link has expired")
        case let .valid(s): share = s
        }
        let top = store.path(share.path)
        guard let entry = FileTree.entry(top) else { return .text(404, "the shared item is gone") }
        if !entry.stat.isDirectory {
            // A file share: the link itself, or the link followed by the file's own name (players like a name).
            let encodedName = top.name.addingPercentEncoding(withAllowedCharacters: .hrefSegment) ?? ""
            guard below.isEmpty || below == "/" || below == "/" + encodedName || below == "/" + top.name else {
                return .text(404, "not found")
            }
            return Self.confined(media.respond(request, path: top) ?? get.respond(request, path: top))
        }
        if below.isEmpty { return WebAppRedirect.to("\(token)/") }
        let target: StoragePath
        switch store.resolver.resolve(rawPath: top.href(collection: true) + below.dropFirst()) {
        case let .success(p): target = p
        case let .failure(refusal): return .text(refusal.status, refusal.message)
        }
        // Links inside the shared folder are followed only while they stay inside it.
        guard target.isWithin(top), let scope = ShareScope(top), scope.contains(target) else { return .text(404, "not found") }
        if let view = media.respond(request, path: target, scope: scope) ?? FolderViews.respond(request, path: target, scope: scope) {
            return Self.confined(view)
        }
        if FileTree.entry(target)?.stat.isDirectory == true && below.hasSuffix("/") {
            let depth = target.segments.count - top.segments.count
            let name = top.name.isEmpty ? "Shared" : top.name
            return web.appPage(root: String(repeating: "../", count: depth + 2), mode: "share", base: "./",
                               title: name + " · Skylift", shared: name)
        }
        return Self.confined(get.respond(request, path: target))
    }

    /// `POST /api/share` with `{"path": "/a/b", "expires": "7d"}`: a link to that file or folder.
    func shareRequest(_ request: HTTPRequest) -> HTTPHeadDecision {
        guard request.method == "POST" else { return .respond(.text(405, "POST only", headers: ["Allow": "POST"])) }
        return .receive(BodyCollector(limit: 16 << 10, kind: "JSON") { body in
            struct Ask: Decodable { let path: String; let expires: String? }
            guard let shares = self.web.shares else { return .text(503, "share links are not available") }
            guard let ask = try? JSONDecoder().decode(Ask.self, from: Data(body)) else {
                return .text(400, "expected {\"path\": \"/…\", \"expires\": \"7d\"}")
            }
            guard let lifetime = Shares.lifetime(ask.expires ?? "7d") else {
                return .text(400, "expires must be like 7d, 12h, 30m (at most a year)")
            }
            let raw = ask.path.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: .hrefSegment) ?? "" }
            let target: StoragePath
            switch self.store.resolver.resolve(rawPath: "/dav/" + raw.joined(separator: "/")) {
            case let .success(p): target = p
            case let .failure(refusal): return .text(refusal.status, refusal.message)
            }
            guard FileTree.entry(target) != nil else { return .text(404, "not found: \(target.relative)") }
            guard let made = try? shares.create(path: target.segments, expires: Date().addingTimeInterval(lifetime)) else {
                return .text(500, "cannot record the share")
            }
            let suffix = self.linkSuffix(target.segments)
            let json = try? JSONSerialization.data(withJSONObject: ["id": made.share.id, "link": "s/\(made.link)\(suffix)",
                                                                    "expires": made.share.expires])
            return HTTPResponse(status: 201, headers: ["Content-Type": "application/json"], body: .bytes(Array(json ?? Data())))
        })
    }
}

extension StorageRouter {
    /// `GET /api/shares`: every recorded link, expired ones too (`expires` says), oldest first;
    /// `DELETE /api/shares/<id>`: revokes one (204; 404 when there is no such link).
    func sharesRequest(_ request: HTTPRequest) -> HTTPResponse {
        guard let shares = web.shares else { return .text(503, "share links are not available") }
        guard request.path != "/api/shares" else {
            guard request.method == "GET" || request.method == "HEAD" else { return .text(405, "GET only", headers: ["Allow": "GET, HEAD"]) }
            guard let all = try? shares.list() else { return .text(500, "cannot read the share registry") }
            let items: [[String: Any]] = all.map { share in
                ["id": share.id, "path": "/" + share.path.joined(separator: "/"), "expires": share.expires,
                 "link": "s/" + shares.link(share) + linkSuffix(share.path)]
            }
            let json = (try? JSONSerialization.data(withJSONObject: ["shares": items], options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: .bytes(Array(json)))
        }
        guard request.method == "DELETE" else { return .text(405, "DELETE only", headers: ["Allow": "DELETE"]) }
        let id = String(request.path.dropFirst("/api/shares/".count))
        guard id.utf8.count == 16, id.utf8.allSatisfy({ Hex.value(of: $0) != nil }) else { return .text(404, "no such share") }
        switch Result(catching: { try shares.revoke(id: id) }) {
        case .success(true): return HTTPResponse(status: 204)
        case .success(false): return .text(404, "no such share")
        case .failure: return .text(500, "cannot change the share registry")
        }
    }

    /// What follows the link token: `/` for a folder, `/<name>` for a file (players like a name).
    func linkSuffix(_ segments: [String]) -> String {
        let path = store.path(segments)
        guard let entry = FileTree.entry(path), !entry.stat.isDirectory else { return "/" }
        return "/" + (path.name.addingPercentEncoding(withAllowedCharacters: .hrefSegment) ?? "")
    }
}

/// A redirect relative to the request's own URL.
enum WebAppRedirect {
    static func to(_ location: String) -> HTTPResponse {
        HTTPResponse(status: 301, headers: ["Location": location, "Cache-Control": "no-store"])
    }
}

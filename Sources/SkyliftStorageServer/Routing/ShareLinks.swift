import Foundation
import SkyliftCore
import SkyliftHTTPServer
import SkyliftWebApp

/// The share-link API over either store: `POST /api/share` makes a link, `GET /api/shares` lists them,
/// `DELETE /api/shares/<id>` revokes one, and a link's token is checked before its path is served. What differs
/// between stores (how a path is found, whether it is a file) comes in as ``Store``.
struct ShareLinks: Sendable {
    /// How the store answers the questions a share link asks.
    struct Store: Sendable {
        /// The path below `/dav/` a client names, confined to the store; the refusal when it is not one.
        let resolve: @Sendable (_ rawPath: String) -> Result<StoragePath, PathRefusal>
        /// The path of a share's segments.
        let path: @Sendable (_ segments: [String]) -> StoragePath
        /// True for a file, false for a folder, nil when nothing is there (or the store cannot tell now).
        let isFile: @Sendable (_ path: StoragePath) -> Bool?
    }

    let web: WebApp
    let store: Store

    /// What a request for `/s/<token>…` reaches: the share its token names, the token, and what follows it in the
    /// path; or the refusal: 405 for anything but GET and HEAD, 403 revoked or forged, 410 expired.
    func open(_ request: HTTPRequest) -> Checked<(share: Share, token: String, below: String)> {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .refused(.text(405, "a share link is read-only", headers: ["Allow": "GET, HEAD"]))
        }
        let rest = request.path.dropFirst(3)
        let token = String(rest.prefix { $0 != "/" })
        switch check(token) {
        case let .value(share): return .value((share, token, String(rest.dropFirst(token.count))))
        case let .refused(response): return .refused(response)
        }
    }

    /// The share a link token names, or the refusal: 403 revoked or forged, 410 expired.
    func check(_ token: String) -> Checked<Share> {
        guard let shares = web.shares else { return .refused(.text(403, "share links are not available")) }
        switch shares.check(token) {
        case .refused: return .refused(.text(403, "this share link was revoked or is not valid"))
        case .expired: return .refused(.text(410, "this share link has expired"))
        case let .valid(share): return .value(share)
        }
    }

    /// `POST /api/share` with `{"path": "/a/b", "expires": "7d"}`: a link to that file or folder.
    func create(_ request: HTTPRequest) -> HTTPHeadDecision {
        guard request.method == "POST" else { return .respond(.text(405, "POST only", headers: ["Allow": "POST"])) }
        return .receive(BodyCollector(limit: 16 << 10, kind: "JSON") { body in
            struct Ask: Decodable { let path: String; let expires: String? }
            guard let shares = web.shares else { return .text(503, "share links are not available") }
            guard let ask = try? JSONDecoder().decode(Ask.self, from: Data(body)) else {
                return .text(400, "expected {\"path\": \"/…\", \"expires\": \"7d\"}")
            }
            guard let lifetime = Shares.lifetime(ask.expires ?? "7d") else {
                return .text(400, "expires must be like 7d, 12h, 30m (at most a year)")
            }
            let raw = ask.path.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: .hrefSegment) ?? "" }
            let target: StoragePath
            switch store.resolve("/dav/" + raw.joined(separator: "/")) {
            case let .success(p): target = p
            case let .failure(refusal): return .text(refusal.status, refusal.message)
            }
            guard let isFile = store.isFile(target) else { return .text(404, "not found: \(target.relative)") }
            guard let made = try? shares.create(path: target.segments, expires: Date().addingTimeInterval(lifetime)) else {
                return .text(500, "cannot record the share")
            }
            let suffix = Self.suffix(isFile: isFile, name: target.name)
            let json = try? JSONSerialization.data(withJSONObject: ["id": made.share.id, "link": "s/\(made.link)\(suffix)",
                                                                    "expires": made.share.expires])
            return HTTPResponse(status: 201, headers: ["Content-Type": "application/json"], body: .bytes(Array(json ?? Data())))
        })
    }

    /// `GET /api/shares`: every recorded link, expired ones too (`expires` says), oldest first;
    /// `DELETE /api/shares/<id>`: revokes one (204; 404 when there is no such link).
    func registry(_ request: HTTPRequest) -> HTTPResponse {
        guard let shares = web.shares else { return .text(503, "share links are not available") }
        guard request.path != "/api/shares" else {
            guard request.method == "GET" || request.method == "HEAD" else { return .text(405, "GET only", headers: ["Allow": "GET, HEAD"]) }
            guard let all = try? shares.list() else { return .text(500, "cannot read the share registry") }
            let items: [[String: Any]] = all.map { share in
                let path = store.path(share.path)
                return ["id": share.id, "path": "/" + share.path.joined(separator: "/"), "expires": share.expires,
                        "link": "s/" + shares.link(share) + Self.suffix(isFile: store.isFile(path) == true, name: path.name)]
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
    static func suffix(isFile: Bool, name: String) -> String {
        isFile ? "/" + (name.addingPercentEncoding(withAllowedCharacters: .hrefSegment) ?? "") : "/"
    }

    /// Whether `below` (what follows a file share's token) names the shared file: nothing, `/`, or `/<its name>`.
    static func namesFile(_ below: String, _ top: StoragePath) -> Bool {
        let encodedName = top.name.addingPercentEncoding(withAllowedCharacters: .hrefSegment) ?? ""
        return below.isEmpty || below == "/" || below == "/" + encodedName || below == "/" + top.name
    }
}

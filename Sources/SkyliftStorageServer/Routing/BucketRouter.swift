import Foundation
import SkyliftCore
import SkyliftHTTPServer
import SkyliftWebApp

/// The embedded cloud over a bucket: authenticates each request (the token, or the web app's session cookie),
/// confines its path, and answers `/dav/` through the same ``RangedGet`` (GET, HEAD) and ``WebDAV`` (PROPFIND,
/// PROPPATCH, PUT, DELETE, MKCOL, COPY, MOVE, LOCK, UNLOCK) the folder store uses, over a ``BucketBackend``; tus
/// uploads (POST to a folder, then `/uploads/<id>`) through ``BucketTusUploads``; the web app's pages, sign-in
/// and share links through the same ``WebApp`` and ``ShareLinks``. Every head runs on a work thread: each waits
/// for the bucket.
///
/// Locks, dead properties, upload state and the web app's state (secret, sessions, share links) all live in the
/// bucket, so any instance serving it answers any request alike; thumbnails of images are kept in this machine's
/// cache (``BucketThumbnails``). What a bucket does not offer yet (poster frames of videos, other views) is
/// answered 501, naming the store, so a client fails clearly.
final class BucketRouter: HTTPHandler {
    let auth: Auth
    let backend: BucketBackend
    let get: RangedGet
    let webdav: WebDAV
    let tus: BucketTusUploads
    let web: WebApp
    let links: ShareLinks
    let thumbnails: BucketThumbnails
    let resolver = PathResolver(rootPath: "")

    /// What OPTIONS says this server allows on `/dav/`.
    static let allowedMethods = WebDAV.allowedMethods + ["PATCH"]

    /// Throws ``StorageServerError`` when the web app's state in the bucket cannot be read or made.
    init(backend: BucketBackend, configuration: StorageConfiguration) throws {
        let auth = Auth(token: configuration.token)
        self.auth = auth
        self.backend = backend
        get = RangedGet(backend: backend)
        webdav = WebDAV(backend: backend, locks: LockTable(keeper: BucketLocks(backend: backend)), resolver: resolver,
                        maxUploadSize: configuration.maxUploadSize)
        tus = BucketTusUploads(backend: backend, resolver: resolver, expiry: configuration.tusExpiry, maxSize: configuration.maxUploadSize)
        thumbnails = BucketThumbnails(backend: backend, configuration: configuration)
        let web = try StorageRouter.makeWebApp(state: BucketWebState(backend: backend), auth: auth, secure: configuration.tls != nil)
        self.web = web
        let resolver = resolver
        links = ShareLinks(web: web, store: ShareLinks.Store(
            resolve: { resolver.resolve(rawPath: $0, walking: false) },
            path: { StoragePath(segments: $0, rootPath: "") },
            isFile: { path in (try? backend.item(path))?.map { !$0.isFolder } }))
    }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision { .offload { self.route(request) } }

    private func route(_ request: HTTPRequest) -> HTTPHeadDecision {
        if let answer = web.handle(request) { return answer }
        // A share link is its own credential and reaches only what it names.
        if request.path.hasPrefix("/s/") { return .respond(shared(request)) }
        if let refusal = authenticate(request) { return .respond(refusal) }
        let path = request.path
        if request.method == "OPTIONS" && (path == "*" || path == "/" || path.hasPrefix("/dav")) { return .respond(options()) }
        if path == "/uploads" || path.hasPrefix("/uploads/") { return tus.handle(request) }
        if path == "/api/share" { return links.create(request) }
        if path == "/api/shares" || path.hasPrefix("/api/shares/") { return .respond(links.registry(request)) }
        guard path == "/dav" || path.hasPrefix("/dav/") else { return .respond(.text(404, "not found")) }
        let target: StoragePath
        switch resolver.resolve(rawPath: path, walking: false) {
        case let .success(p): target = p
        case let .failure(refusal): return .respond(.text(refusal.status, refusal.message))
        }
        switch request.method {
        case "GET", "HEAD": return .respond(StorageRouter.confined(view(request, target) ?? get.respond(request, path: target)))
        case "POST": return tus.create(request, folder: target)
        default: return webdav.handle(request, target: target)
        }
    }

    /// Nil when the token or the session cookie lets the request in; otherwise the 401, or a 429 for a wrong
    /// token inside its client's penalty (see `SignInThrottle`).
    private func authenticate(_ request: HTTPRequest) -> HTTPResponse? {
        let verdict = auth.verdict(request.headers)
        if verdict == .allowed || StorageRouter.cookieAllows(request, web: web) { return nil }
        if verdict == .wrong, let refused = web.wrongToken(request) { return refused }
        return Auth.challenge(request.headers)
    }

    /// 501 for what a bucket does not offer yet, with the methods it does.
    func unavailable(_ what: String) -> HTTPResponse {
        .text(501, "\(what) is not available on an S3 store (s3://\(backend.store.bucket)/\(backend.store.prefix)) yet; "
            + "it serves \(Self.allowedMethods.joined(separator: ", "))", headers: ["Allow": Self.allowedMethods.joined(separator: ", ")])
    }

    private func options() -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("DAV", "1, 2")
        h.add("Allow", Self.allowedMethods.joined(separator: ", "))
        h.add("Accept-Ranges", "bytes")
        tus.advertise(into: &h)
        return HTTPResponse(status: 200, headers: h)
    }
}

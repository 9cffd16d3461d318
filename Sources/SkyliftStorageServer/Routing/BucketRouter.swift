import Foundation
import SkyliftCore
import SkyliftHTTPServer

/// The embedded cloud over a bucket: authenticates each request, confines its path, and answers `/dav/` through the
/// same ``RangedGet`` (GET, HEAD) and ``WebDAV`` (PROPFIND, PROPPATCH, PUT, DELETE, MKCOL, COPY, MOVE, LOCK,
/// UNLOCK) the folder store uses, over a ``BucketBackend``, and tus uploads (POST to a folder, then
/// `/uploads/<id>`) through ``BucketTusUploads``. Every head runs on a work thread: each waits for the bucket.
///
/// Locks live in the bucket (``BucketLocks``) and dead properties in each object's metadata, so both hold on every
/// instance. What a bucket does not offer yet (the web app, share links, views) is answered 501, naming the store,
/// so a client fails clearly instead of half-working.
final class BucketRouter: HTTPHandler {
    let auth: Auth
    let backend: BucketBackend
    let get: RangedGet
    let webdav: WebDAV
    let tus: BucketTusUploads
    private let resolver = PathResolver(rootPath: "")

    /// What OPTIONS says this server allows on `/dav/`.
    static let allowedMethods = WebDAV.allowedMethods + ["PATCH"]

    init(backend: BucketBackend, token: String?, maxUploadSize: Int64, tusExpiry: TimeInterval) {
        auth = Auth(token: token)
        self.backend = backend
        get = RangedGet(backend: backend)
        webdav = WebDAV(backend: backend, locks: LockTable(keeper: BucketLocks(backend: backend)), resolver: resolver,
                        maxUploadSize: maxUploadSize)
        tus = BucketTusUploads(backend: backend, resolver: resolver, expiry: tusExpiry, maxSize: maxUploadSize)
    }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision { .offload { self.route(request) } }

    private func route(_ request: HTTPRequest) -> HTTPHeadDecision {
        guard auth.allows(request.headers) else { return .respond(Auth.challenge(request.headers)) }
        if request.method == "OPTIONS" && (request.path == "*" || request.path == "/" || request.path.hasPrefix("/dav")) {
            return .respond(options())
        }
        if request.path == "/uploads" || request.path.hasPrefix("/uploads/") { return tus.handle(request) }
        guard request.path == "/dav" || request.path.hasPrefix("/dav/") else {
            return .respond(.text(request.path == "/" ? 501 : 404, request.path == "/"
                ? "the web app is not served from an S3 store yet; files are under /dav/" : "not found"))
        }
        let target: StoragePath
        switch resolver.resolve(rawPath: request.path, walking: false) {
        case let .success(p): target = p
        case let .failure(refusal): return .respond(.text(refusal.status, refusal.message))
        }
        switch request.method {
        case "GET", "HEAD":
            // The query is not echoed: it is the client's text.
            guard request.query == nil else { return .respond(unavailable("a view (a GET with a query)")) }
            return .respond(StorageRouter.confined(get.respond(request, path: target)))
        case "POST": return tus.create(request, folder: target)
        default: return webdav.handle(request, target: target)
        }
    }

    /// 501 for what a bucket does not offer yet, with the methods it does.
    private func unavailable(_ what: String) -> HTTPResponse {
        .text(501, "\(what) is not available on an S3 store (s3://\(backend.store.bucket)/\(backend.store.prefix)) yet; "
            + "it serves \(Self.allowedMethods.joined(separator: ", "))", headers: ["Allow": Self.allowedMethods.joined(separator: ", ")])
    }

    private func options() -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("DAV", "1, 2")
        h.add("Allow", Self.allowedMethods.joined(separator: ", "))
        h.add("Accept-Ranges", "bytes")
        BucketTusUploads.advertise(into: &h, maxSize: tus.maxSize)
        return HTTPResponse(status: 200, headers: h)
    }
}

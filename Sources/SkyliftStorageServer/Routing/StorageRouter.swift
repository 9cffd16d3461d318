import Foundation
import SkyliftHTTPServer
import SkyliftThumbnails
import SkyliftWebApp

/// Authenticates each request, confines its path, and hands it to the part of the server that owns it.
final class StorageRouter: HTTPHandler {
    let configuration: StorageConfiguration
    let store: Store
    let auth: Auth
    let tus: TusUploads
    let webdav: WebDAV
    let web: WebApp
    let get: RangedGet
    let media: MediaViews
    let links: ShareLinks

    init(configuration: StorageConfiguration, store: Store) throws {
        self.configuration = configuration
        self.store = store
        let auth = Auth(token: configuration.token)
        self.auth = auth
        tus = TusUploads(store: store, expiry: configuration.tusExpiry, maxSize: configuration.maxUploadSize)
        let backend = FolderBackend(rootPath: store.rootPath, digests: store.digests, properties: DeadProperties(),
                                    space: store.space, smallFiles: SmallFileCache())
        webdav = WebDAV(backend: backend, locks: LockTable(), resolver: store.resolver, maxUploadSize: configuration.maxUploadSize)
        get = RangedGet(backend: backend, finish: { ResponsePolicy.apply(Self.confined($0)) })
        web = try Self.makeWebApp(store: store, auth: auth, secure: configuration.tls != nil)
        media = MediaViews(maker: Self.makeThumbnailer(configuration, store), digests: store.digests)
        links = ShareLinks(web: web, store: ShareLinks.Store(
            resolve: { store.resolver.resolve(rawPath: $0) },
            path: { store.path($0) },
            isFile: { FileTree.entry($0).map { !$0.stat.isDirectory } }))
    }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        if Self.answersOnLoop(request) { return route(request) }
        // A gallery's thumbnails are mostly cached: those are answered here like small files, the rest offloaded.
        if MediaViews.asksForThumbnail(request) && request.path.hasPrefix("/dav/") { return route(request, thumbnailOnLoop: true) }
        return .offload { self.route(request) }
    }

    /// Requests answered from memory or with one quick look at local disk (open, stat, a small attribute) run on
    /// the server's event loop; those that walk trees, copy, fsync or write state run on its work threads.
    /// Uploads start on the loop (their bodies are written there as they arrive; `finish` is offloaded).
    static func answersOnLoop(_ request: HTTPRequest) -> Bool {
        switch request.method {
        case "GET", "HEAD": request.query == nil && (request.path == "/" || !request.path.hasSuffix("/"))
        case "PUT", "PATCH", "OPTIONS": true
        default: false
        }
    }

    /// `thumbnailOnLoop`: running on the event loop for a `?thumb=` request, which is answered only when the
    /// thumbnail needs nothing made and is otherwise routed again on a work thread.
    private func route(_ request: HTTPRequest, thumbnailOnLoop: Bool = false) -> HTTPHeadDecision {
        if let answer = web.handle(request) { return answer }
        // A share link is its own credential and reaches only what it names (see StorageRouter+Shares).
        if request.path.hasPrefix("/s/") { return .respond(shared(request)) }
        if let refusal = authenticate(request) { return .respond(refusal) }
        let path = request.path
        if path == "/uploads" || path.hasPrefix("/uploads/") { return tus.handle(request) }
        if path == "/api/share" { return links.create(request) }
        if path == "/api/shares" || path.hasPrefix("/api/shares/") { return .respond(links.registry(request)) }
        if request.method == "OPTIONS" && (path == "*" || path == "/") { return .respond(options()) }
        let target: StoragePath
        // A plain GET or HEAD reaches its path only through FileTree.entry, which applies the link rule itself.
        let plainRead = (request.method == "GET" || request.method == "HEAD") && (request.query == nil || thumbnailOnLoop)
        switch store.resolver.resolve(rawPath: path, walking: !plainRead) {
        case let .success(p): target = p
        case let .failure(refusal): return .respond(.text(refusal.status, refusal.message))
        }
        switch request.method {
        case "OPTIONS": return .respond(options())
        case "GET", "HEAD":
            if thumbnailOnLoop {
                guard let cached = media.cachedThumbnail(request, path: target) else { return .offload { self.route(request) } }
                return .respond(Self.confined(cached))
            }
            let view = media.respond(request, path: target) ?? FolderViews.respond(request, path: target)
            return .respond(Self.confined(view ?? get.respond(request, path: target)))
        case "POST": return tus.create(request, folder: target)
        default: return webdav.handle(request, target: target)
        }
    }

    /// Nil when the token or the session cookie lets the request in; otherwise the 401, or a 429 for a wrong
    /// token inside its client's penalty (see ``SignInThrottle``).
    private func authenticate(_ request: HTTPRequest) -> HTTPResponse? {
        let verdict = auth.verdict(request.headers)
        if verdict == .allowed || cookieAllows(request) { return nil }
        if verdict == .wrong, let refused = web.wrongToken(request) { return refused }
        return Auth.challenge(request.headers)
    }

    /// The thumbnail maker over `<root>/.skylift-thumbs`; nil (thumbnails answer 503) when libvips cannot start
    /// or the cache folder cannot be made, which does not stop the rest of the server.
    static func makeThumbnailer(_ configuration: StorageConfiguration, _ store: Store) -> Thumbnailer? {
        var options = ThumbnailOptions(cacheFolder: store.rootPath + "/" + PathResolver.hiddenPrefix + "thumbs")
        options.cacheBytes = configuration.thumbnailCacheBytes
        if let threads = configuration.thumbnailThreads { options.threads = threads }
        return try? Thumbnailer(options: options)
    }

    /// One answer for every OPTIONS: what WebDAV class and which tus extensions are spoken here.
    private func options() -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("DAV", "1, 2")
        h.add("MS-Author-Via", "DAV")
        // PATCH too: the same server takes tus PATCHes at /uploads/.
        h.add("Allow", (WebDAV.allowedMethods + ["PATCH"]).joined(separator: ", "))
        h.add("Accept-Ranges", "bytes")
        TusUploads.advertise(into: &h, maxSize: configuration.maxUploadSize)
        return HTTPResponse(status: 200, headers: h)
    }
}

/// A value, or the response that refuses the request (responses are not `Error`s: their bodies are not Sendable).
enum Checked<Value> {
    case value(Value)
    case refused(HTTPResponse)
}

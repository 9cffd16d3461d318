import Foundation
import SkyliftHTTPServer
import SkyliftWebApp

/// The web app's reads over a bucket: `?list` and `?zip` of a folder, `?thumb=` of an image, and read-only share
/// links at `/s/<link>/…` (the shared file, or the shared folder's browse page, `?list`, `?zip`, thumbnails and
/// files with ranges), `?search=`, and `?timeline` (photos dated by their EXIF, read once per version and instance;
/// videos and photos without one by when they were stored).
extension BucketRouter {
    /// The answer to a GET or HEAD with a query; nil for a plain one.
    func view(_ request: HTTPRequest, _ target: StoragePath) -> HTTPResponse? {
        guard let query = request.query else { return nil }
        if let thumbnail = thumbnails.respond(request, path: target) { return thumbnail }
        // The query is not echoed: it is the client's text.
        let search = SearchQuery.asks(query)
        let timeline = query == "timeline" || query.hasPrefix("timeline&")
        guard query == "list" || ZipSelection.isZip(query) || search || timeline else {
            return unavailable("this view (a GET with a query)")
        }
        do {
            guard let item = try backend.item(target) else { return .text(404, "not found: \(target.relative)") }
            guard item.isFolder else { return .text(400, "not a folder: \(target.relative)") }
            if query == "list" { return FolderViews.list(target, members: try backend.members(of: target)) }
        } catch { return error.response }
        // A bucket has no links: every folder below is entered; one the bucket cannot list now is skipped.
        let backend = backend
        if search { return FolderSearch.respond(query, folder: target) { path, _ in try? backend.members(of: path) } }
        if timeline {
            guard let parsed = ViewQuery(query) else { return .text(400, "malformed query") }
            let thumbnails = thumbnails
            return Timeline(tree: { path, _ in try? backend.members(of: path) }, taken: { member, kind in
                let date = (kind == .image ? thumbnails.takenDate(member) : nil) ?? member.item.lastModified
                return FileTime(seconds: Int64(date?.timeIntervalSince1970 ?? 0), nanoseconds: 0)
            }).respond(parsed, path: target)
        }
        switch ZipSelection.parse(query: query) {
        case let .failure(refusal): return .text(400, refusal.message)
        case let .success(selection):
            // A missing member is named now, while the answer can still say so; the archive is streamed later.
            for name in selection.names {
                let member = target.appending(name)
                guard !name.hasPrefix(PathResolver.hiddenPrefix), case .some(.some) = try? backend.item(member) else {
                    return .text(404, "not found: \(member.relative)")
                }
            }
            return FolderViews.zipResponse(target, BucketZipWalk(backend, target, only: selection.names))
        }
    }

    func shared(_ request: HTTPRequest) -> HTTPResponse {
        let (share, token, below): (Share, String, String)
        switch links.open(request) {
        case let .value(opened): (share, token, below) = opened
        case let .refused(response): return response
        }
        let top = StoragePath(segments: share.path, rootPath: "")
        let item: StoredItem
        do {
            guard let found = try backend.item(top) else { return .text(404, "the shared item is gone") }
            item = found
        } catch { return error.response }
        if !item.isFolder {
            guard ShareLinks.namesFile(below, top) else { return .text(404, "not found") }
            return StorageRouter.confined(thumbnails.respond(request, path: top) ?? get.respond(request, path: top))
        }
        if below.isEmpty { return WebAppRedirect.to("\(token)/") }
        let target: StoragePath
        switch resolver.resolve(rawPath: top.href(collection: true) + below.dropFirst(), walking: false) {
        case let .success(p): target = p
        case let .failure(refusal): return .text(refusal.status, refusal.message)
        }
        // A bucket has no links: a path stays inside the share exactly when it is below it.
        guard target.isWithin(top) else { return .text(404, "not found") }
        if let view = view(request, target) { return StorageRouter.confined(view) }
        if below.hasSuffix("/"), (try? backend.item(target))??.isFolder == true {
            let depth = target.segments.count - top.segments.count
            let name = top.name.isEmpty ? "Shared" : top.name
            return web.appPage(root: String(repeating: "../", count: depth + 2), mode: "share", base: "./",
                               title: name + " · Skylift", shared: name)
        }
        return StorageRouter.confined(get.respond(request, path: target))
    }
}

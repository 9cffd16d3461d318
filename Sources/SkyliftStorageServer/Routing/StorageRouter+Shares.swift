import Foundation
import SkyliftCore
import SkyliftHTTPServer
import SkyliftWebApp

/// Read-only share links at `/s/<link>/…`: GET and HEAD of the shared file, or of the shared folder's
/// members (the browse page, `?list`, `?zip`, files with ranges), and nothing else: no parent, no writes, no
/// WebDAV. Making, listing and revoking them is ``ShareLinks``.
extension StorageRouter {
    func shared(_ request: HTTPRequest) -> HTTPResponse {
        let (share, token, below): (Share, String, String)
        switch links.open(request) {
        case let .value(opened): (share, token, below) = opened
        case let .refused(response): return response
        }
        let top = store.path(share.path)
        guard let entry = FileTree.entry(top) else { return .text(404, "the shared item is gone") }
        if !entry.stat.isDirectory {
            // A file share: the link itself, or the link followed by the file's own name (players like a name).
            guard ShareLinks.namesFile(below, top) else { return .text(404, "not found") }
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
}

/// A redirect relative to the request's own URL.
enum WebAppRedirect {
    static func to(_ location: String) -> HTTPResponse {
        HTTPResponse(status: 301, headers: ["Location": location, "Cache-Control": "no-store"])
    }
}

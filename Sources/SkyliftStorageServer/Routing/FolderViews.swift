import Foundation
import SkyliftHTTPServer
import SkyliftCore
import SkyliftWebApp

/// What the web app asks of a folder besides its HTML index: `?list` (its members as JSON, for the app's
/// table), `?zip` (the whole folder as a zip archive streamed as it is built; `?zip&name=a&name=b`: just those
/// members, see ``ZipSelection``) and `?search=` (``FolderSearch``).
enum FolderViews {
    /// The answer for `GET folder/?list` or `?zip`; nil for any other request, which goes on as a plain GET.
    /// With a `scope` (a share link), members whose links lead out of it are left out.
    static func respond(_ request: HTTPRequest, path: StoragePath, scope: ShareScope? = nil) -> HTTPResponse? {
        if let query = request.query, SearchQuery.asks(query) { return FolderSearch.respond(query, folder: path, scope: scope) }
        guard let query = request.query, query == "list" || ZipSelection.isZip(query) else { return nil }
        guard let entry = FileTree.entry(path) else { return .text(404, "not found: \(path.relative)") }
        guard entry.stat.isDirectory else { return .text(400, "not a folder: \(path.relative)") }
        if query == "list" { return list(entry, path, scope) }
        switch ZipSelection.parse(query: query) {
        case let .failure(refusal): return .text(400, refusal.message)
        case let .success(selection): return zip(path, selection, scope)
        }
    }

    private struct Item: Encodable {
        let name: String
        let dir: Bool
        let size: Int64
        let mtime: Int64
        let type: String
    }

    private struct Listing: Encodable {
        let path: String
        let entries: [Item]
    }

    private static func list(_ folder: FileTree.Entry, _ path: StoragePath, _ scope: ShareScope?) -> HTTPResponse {
        let members = FileTree.members(of: folder, at: path).filter { scope?.contains($0.path) ?? true }
        return listing(path, members.map { child, stat in
            Item(name: child.name, dir: stat.isDirectory, size: stat.isDirectory ? 0 : stat.size,
                 mtime: stat.mtime.seconds,
                 type: stat.isDirectory ? "folder" : MediaType.forPath(child.name))
        })
    }

    /// `?list` of a folder of any store, from its members as the store listed them.
    static func list(_ path: StoragePath, members: [StoredMember]) -> HTTPResponse {
        listing(path, members.map { member in
            let item = member.item
            return Item(name: member.path.name, dir: item.isFolder, size: item.isFolder ? 0 : item.size,
                        mtime: Int64(item.lastModified?.timeIntervalSince1970 ?? 0),
                        type: item.isFolder ? "folder" : MediaType.forPath(member.path.name))
        })
    }

    private static func listing(_ path: StoragePath, _ items: [Item]) -> HTTPResponse {
        guard let json = try? JSONEncoder().encode(Listing(path: path.relative, entries: items)) else {
            return .text(500, "cannot encode listing of \(path.relative)")
        }
        var h = HTTPHeaders()
        h.add("Content-Type", "application/json")
        h.add("Cache-Control", "no-store")
        return HTTPResponse(status: 200, headers: h, body: .bytes(Array(json)))
    }

    private static func zip(_ path: StoragePath, _ selection: ZipSelection, _ scope: ShareScope?) -> HTTPResponse {
        // A missing member is named now, while the answer can still say so; the archive is streamed later.
        for name in selection.names {
            let member = path.appending(name)
            // The server's own hidden entries are no members, as in listings.
            guard !name.hasPrefix(PathResolver.hiddenPrefix), FileTree.entry(member) != nil, scope?.contains(member) ?? true else {
                return .text(404, "not found: \(member.relative)")
            }
        }
        return zipResponse(path, FolderWalk(path, only: selection.names, scope: scope))
    }

    /// The archive of the folder `path`, its members from `source`, streamed as it is built (named after the
    /// folder, `files.zip` for the root).
    static func zipResponse(_ path: StoragePath, _ source: any ZipEntrySource) -> HTTPResponse {
        let name = (path.isRoot ? "files" : path.name) + ".zip"
        var h = HTTPHeaders()
        h.add("Content-Type", "application/zip")
        h.add("Cache-Control", "no-store")
        let ascii = String(name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 32 ? Character($0) : "_" })
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .hrefSegment) ?? ascii
        h.add("Content-Disposition", "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)")
        return HTTPResponse(status: 200, headers: h, body: .stream(length: nil, producer: ZipStream(source: source)))
    }
}

/// The members of a folder, depth first, as zip entries: each file opened only when its turn comes.
/// Links that lead to folders are left out (they could lead back up and never end); links to files and
/// special files follow the usual rule (see ``FileTree``). Folders more than ``FileSystem/maxTreeDepth`` below
/// the top are left out too: each entry is found from the root again, so a deeper chain would cost its depth
/// squared (a 100,000-deep chain kept a core busy for over a minute).
final class FolderWalk: ZipEntrySource {
    private let top: StoragePath
    private let scope: ShareScope?
    private var stack: [StoragePath]

    /// `only`: the top's members to take (empty: all of them), in the order given.
    init(_ top: StoragePath, only: [String] = [], scope: ShareScope? = nil) {
        self.top = top
        self.scope = scope
        stack = []
        if !only.isEmpty { stack = only.map(top.appending).reversed() } else if let entry = FileTree.entry(top) { stack = children(entry, top) }
    }

    private func children(_ entry: FileTree.Entry, _ path: StoragePath) -> [StoragePath] {
        FileTree.members(of: entry, at: path).map(\.path).reversed()
    }

    func next() -> ZipEntry? {
        while let path = stack.popLast() {
            guard let entry = FileTree.entry(path), scope?.contains(entry) ?? true else { continue }
            let name = path.segments.dropFirst(top.segments.count).joined(separator: "/")
            if entry.stat.isDirectory {
                if entry.isLink || path.segments.count - top.segments.count > FileSystem.maxTreeDepth { continue }
                stack += children(entry, path)
                return ZipEntry(name: name + "/", modified: entry.stat.lastModified, size: 0, descriptor: nil)
            }
            guard let fd = try? entry.target.openFile(), let stat = FileSystem.stat(fd: fd) else { continue }
            return ZipEntry(name: name, modified: stat.lastModified, size: stat.size, descriptor: fd)
        }
        return nil
    }
}

/// What a share link reaches: the shared item's real place (links resolved) and everything below it. A link
/// inside a shared folder that leads elsewhere in the store is not followed for the share.
struct ShareScope {
    let physical: [String]

    init?(_ top: StoragePath) {
        guard let entry = FileTree.entry(top) else { return nil }
        physical = entry.target.physical
    }

    func contains(_ entry: FileTree.Entry) -> Bool { entry.target.physical.starts(with: physical) }

    func contains(_ path: StoragePath) -> Bool { FileTree.entry(path).map(contains) ?? false }
}

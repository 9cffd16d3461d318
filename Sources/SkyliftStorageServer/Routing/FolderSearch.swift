import Foundation
import SkyliftCore
import SkyliftHTTPServer

/// `GET <folder>/?search=<text>&after=<cursor>&limit=<n>`: the entries in the folder and below whose names
/// contain the text (compared without regard to case), as JSON pages `{"items": […], "next": cursor or null}`.
///
/// The walk is depth first, members of each folder in the byte order of their names, so a page can start
/// where the last one stopped without remembering anything: the cursor is the path of the last entry looked
/// at. Each request looks at no more than ``visitLimit`` entries (a page may then hold fewer than `limit`
/// items, even none, with a `next` to go on from), enters no folder more than ``maxDepth`` below the searched
/// one, and does not enter links to folders (they could lead back up). Under a share link, entries whose
/// links lead out of the share are left out, as in its listing. The walk asks ``Tree`` for members, so it runs
/// over either store (a bucket lists one folder per request to it).
struct FolderSearch {
    /// The members of the folder at a path, as the store lists them; nil when it is not a folder that may be
    /// entered. `top`: the searched folder itself (a link to a folder is entered there, nowhere else).
    typealias Tree = (_ path: StoragePath, _ top: Bool) -> [StoredMember]?

    /// Folders deeper than this below the searched one are not entered.
    static let maxDepth = 32
    /// Entries looked at per request.
    static let visitLimit = 10_000

    private struct Item: Encodable {
        let path: String
        let name: String
        let dir: Bool
        let size: Int64
        let modified: String
        let type: String
        let etag: String
    }

    private struct Page: Encodable {
        let items: [Item]
        let next: String?

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(items, forKey: .items)
            try c.encode(next, forKey: .next) // null, not left out: the client reads "no more"
        }

        enum CodingKeys: String, CodingKey { case items, next }
    }

    /// A folder being walked: its members not yet looked at, the next one last.
    private struct Frame {
        var pending: [StoredMember]
    }

    let top: StoragePath
    let tree: Tree
    let query: SearchQuery

    /// The search of a folder store's folder: links to folders entered only at the top, nothing outside `scope`.
    static func respond(_ query: String, folder: StoragePath, scope: ShareScope?) -> HTTPResponse {
        guard let entry = FileTree.entry(folder) else { return .text(404, "not found: \(folder.relative)") }
        guard entry.stat.isDirectory else { return .text(400, "not a folder: \(folder.relative)") }
        return respond(query, folder: folder) { path, top in
            guard let entry = FileTree.entry(path), entry.stat.isDirectory, top || !entry.isLink,
                  scope?.contains(entry) ?? true else { return nil }
            return FileTree.members(of: entry, at: path).filter { scope?.contains($0.path) ?? true }
                .map { StoredMember(path: $0.path, item: StoredItem($0.stat)) }
        }
    }

    /// The search of `folder` (a folder: the caller checked) walking `tree`.
    static func respond(_ query: String, folder: StoragePath, tree: @escaping Tree) -> HTTPResponse {
        let parsed: SearchQuery
        switch SearchQuery.parse(query) {
        case let .success(q): parsed = q
        case let .failure(error): return .text(400, error.reason)
        }
        let page = FolderSearch(top: folder, tree: tree, query: parsed).run()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes // paths read as paths: "a/b", not "a\/b"
        guard let json = try? encoder.encode(page) else { return .text(500, "cannot encode the search of \(folder.relative)") }
        var h = HTTPHeaders()
        h.add("Content-Type", "application/json")
        h.add("Cache-Control", "no-store")
        return HTTPResponse(status: 200, headers: h, body: .bytes(Array(json)))
    }

    private func run() -> Page {
        var stack = start()
        var items: [Item] = []
        var visited = 0
        var last: [String]?
        while items.count < query.limit, visited < Self.visitLimit {
            guard let member = next(&stack) else { return Page(items: items, next: nil) }
            visited += 1
            let path = member.path
            let relative = Array(path.segments.dropFirst(top.segments.count))
            last = relative
            if path.name.range(of: query.text, options: .caseInsensitive) != nil { items.append(item(member, relative)) }
            if member.item.isFolder, relative.count < Self.maxDepth, let members = members(path, top: false) {
                stack.append(Frame(pending: members))
            }
        }
        let more = stack.contains { !$0.pending.isEmpty }
        return Page(items: items, next: more ? last.map(SearchCursor.encode) : nil)
    }

    /// The walk as it stands just after the cursor's entry was looked at: for each folder on the cursor's way,
    /// its members after the one the cursor goes through; then the cursor entry's own members.
    private func start() -> [Frame] {
        guard !query.after.isEmpty else { return [Frame(pending: members(top, top: true) ?? [])] }
        var stack: [Frame] = []
        var folder = top
        for segment in query.after {
            let rest = (members(folder, top: folder == top) ?? []).filter { Self.precedes(segment, $0.path.name) }
            stack.append(Frame(pending: rest))
            folder = folder.appending(segment)
        }
        if query.after.count < Self.maxDepth, let inside = members(folder, top: false) { stack.append(Frame(pending: inside)) }
        return stack
    }

    private func next(_ stack: inout [Frame]) -> StoredMember? {
        while let i = stack.indices.last {
            if let member = stack[i].pending.popLast() { return member }
            stack.removeLast()
        }
        return nil
    }

    /// The members of the folder at `path`, ready to pop (the first name last); nil when it is not a folder
    /// that may be entered.
    private func members(_ path: StoragePath, top: Bool) -> [StoredMember]? {
        tree(path, top)?.sorted { Self.precedes($1.path.name, $0.path.name) }
    }

    /// Byte order of names: two names that Swift's `String` compares equal (canonically equivalent, other
    /// bytes) are still two entries, and a cursor between them must not skip one.
    private static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    private func item(_ member: StoredMember, _ relative: [String]) -> Item {
        let item = member.item, name = member.path.name
        return Item(path: relative.joined(separator: "/"), name: name, dir: item.isFolder, size: item.isFolder ? 0 : item.size,
                    modified: UTCTimestamp.format(item.lastModified ?? Date(timeIntervalSince1970: 0)),
                    type: item.isFolder ? "folder" : MediaType.forPath(name), etag: item.etag ?? "")
    }
}

import Foundation
import SkyliftCore
import SkyliftHTTPServer
import SkyliftThumbnails

/// `GET <folder>/?timeline&after=<cursor>&limit=<n>`: the images and videos in the folder and below, newest
/// `taken` first (a photo's EXIF `DateTimeOriginal`, else the file's modification time), a page at a time.
///
/// Each page walks the folder again (bounded: ``maxEntries`` entries seen and ``FileSystem/maxTreeDepth`` levels;
/// links to folders are not entered) and sorts what it found; the dates of photos already read come from
/// ``TakenDates``, so only new or changed files have their headers read. Past the bound the answer says
/// `"truncated": true`.
struct Timeline {
    /// Entries (files and folders) a walk looks at, at most.
    static let maxEntries = 100_000
    static let defaultLimit = 100
    static let maxLimit = 500

    struct Item: Encodable {
        let path: String
        let name: String
        let size: Int64
        let taken: String
        let type: String
        let etag: String
        let when: FileTime

        enum CodingKeys: String, CodingKey { case path, name, size, taken, type, etag }
    }

    private struct Page: Encodable {
        let items: [Item]
        let next: String?
        let truncated: Bool

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(items, forKey: .items)
            try c.encode(next, forKey: .next) // null on the last page, as the app expects
            if truncated { try c.encode(true, forKey: .truncated) }
        }

        enum CodingKeys: String, CodingKey { case items, next, truncated }
    }

    /// The members of the folder at a path as the store lists them (nil: not a folder the walk may enter), as
    /// ``FolderSearch/Tree``; a walk over a bucket lists one folder per request to it.
    let tree: FolderSearch.Tree
    /// When a file was taken: a photo's EXIF date where the store can read it, else its modification time.
    let taken: (StoredMember, MediaKind) -> FileTime

    func respond(_ query: ViewQuery, path: StoragePath) -> HTTPResponse {
        var cursor: TimelineCursor?
        if let text = query.value("after"), !text.isEmpty {
            guard let parsed = TimelineCursor(text: text) else { return .text(400, "after: not a timeline cursor") }
            cursor = parsed
        }
        var limit = Self.defaultLimit
        if let text = query.value("limit") {
            guard text.count <= 4, let n = Int(text), (1 ... Self.maxLimit).contains(n) else {
                return .text(400, "limit must be 1 to \(Self.maxLimit)")
            }
            limit = n
        }
        let (all, truncated) = collect(path)
        let sorted = all.sorted(by: Self.precedes)
        let start = cursor.map { c in sorted.firstIndex { Self.isAfter($0, c) } ?? sorted.endIndex } ?? sorted.startIndex
        let page = Array(sorted[start...].prefix(limit))
        let more = start + page.count < sorted.endIndex
        let next = more ? page.last.map { TimelineCursor(seconds: $0.when.seconds, nanoseconds: Int32($0.when.nanoseconds), path: $0.path).text } : nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        guard let json = try? encoder.encode(Page(items: page, next: next, truncated: truncated)) else {
            return .text(500, "cannot encode the timeline of \(path.relative)")
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                            body: .bytes(Array(json)))
    }

    /// Newest first; the same time by path, so the order is total and a cursor names one place in it.
    static func precedes(_ a: Item, _ b: Item) -> Bool {
        (b.when.seconds, b.when.nanoseconds, a.path) < (a.when.seconds, a.when.nanoseconds, b.path)
    }

    /// True when `item` comes after the item the cursor names, in ``precedes(_:_:)``'s order.
    static func isAfter(_ item: Item, _ c: TimelineCursor) -> Bool {
        (item.when.seconds, item.when.nanoseconds, c.path) < (c.seconds, Int64(c.nanoseconds), item.path)
    }
}

import Foundation
import SkyliftCore
import SkyliftHTTPServer
import SkyliftSystem
import SkyliftThumbnails

/// The photo views of files and folders, beside ``FolderViews``: `GET <file>?thumb=<size>` (a JPEG thumbnail or
/// poster frame) and `GET <folder>/?timeline` (see ``Timeline``), under `/dav/…` and share links alike.
struct MediaViews: Sendable {
    /// Nil when libvips could not be started: the views answer 503 and everything else is served as usual.
    let maker: Thumbnailer?
    let digests: DigestStore
    let dates = TakenDates()
    /// The tag of each file version's thumbnail at each size, as worked out last: a gallery asks for the same
    /// ones again and again, and working one out reads the digest record and hashes the key.
    private let tags = BoundedMemo<TagKey, String>(capacity: 10_000)

    private struct TagKey: Hashable {
        let version: RecentRecords.Version
        let pixels: Int
    }

    /// Thumbnails never change under one URL: the app adds the file's ETag (`&v=`) so a changed file gets a new one.
    static let cacheControl = "private, max-age=31536000, immutable"

    /// The answer for `?thumb=` or `?timeline`; nil for any other request, which goes on as before.
    func respond(_ request: HTTPRequest, path: StoragePath, scope: ShareScope? = nil) -> HTTPResponse? {
        guard let raw = request.query, raw.hasPrefix("thumb=") || raw == "timeline" || raw.hasPrefix("timeline&") else { return nil }
        guard let query = ViewQuery(raw) else { return .text(400, "malformed query") }
        guard let maker else { return .text(503, "thumbnails are not available: libvips did not start") }
        guard let entry = FileTree.entry(path) else { return .text(404, "not found: \(path.relative)") }
        if query.has("timeline") {
            guard entry.stat.isDirectory else { return .text(400, "not a folder: \(path.relative)") }
            let dates = dates
            let timeline = Timeline(tree: { folder, top in
                // Links to folders are entered only at the top; nothing outside the share is listed.
                guard let entry = FileTree.entry(folder), entry.stat.isDirectory, top || !entry.isLink,
                      scope?.contains(entry) ?? true else { return nil }
                return FileTree.members(of: entry, at: folder).filter { scope?.contains($0.path) ?? true }
                    .map { StoredMember(path: $0.path, item: StoredItem($0.stat)) }
            }, taken: { member, kind in
                guard let stat = member.item.stat else { return FileTime(seconds: 0, nanoseconds: 0) }
                guard kind == .image, let date = dates.date(path: member.path.relative, stat: stat, using: maker,
                                                            open: { try? FileTree.entry(member.path)?.target.openFile() }) else {
                    return stat.mtime
                }
                return FileTime(seconds: HTTPDate.seconds(date), nanoseconds: 0)
            })
            return timeline.respond(query, path: path)
        }
        guard let size = query.value("thumb").flatMap({ ThumbnailSize(text: Substring($0)) }) else {
            return .text(400, "thumb must be one of \(ThumbnailSize.allCases.map { String($0.pixels) }.joined(separator: ", "))")
        }
        guard !entry.stat.isDirectory else { return .text(400, "not a file: \(path.relative)") }
        guard let kind = MediaKind(name: path.name) else { return .text(415, "not an image or video: \(path.relative)") }
        return thumbnail(request, maker, entry, path, kind, size)
    }

    /// True for `GET|HEAD …?thumb=…`: the one view that may be answered on the event loop (see ``cachedThumbnail(_:path:)``).
    static func asksForThumbnail(_ request: HTTPRequest) -> Bool {
        (request.method == "GET" || request.method == "HEAD") && request.query?.hasPrefix("thumb=") == true
    }

    /// The answer to `?thumb=` when it needs nothing made: the thumbnail is in the disk cache, or the client's
    /// copy is current (304). Opens the file the way a plain GET does (``FileTree/openServedFile(_:)``) and reads
    /// one small cache file, so it runs on the event loop like a small static file. Nil for anything else (a
    /// thumbnail to make, a link or folder on the way, a malformed query), which ``respond(_:path:scope:)``
    /// then answers on a work thread.
    func cachedThumbnail(_ request: HTTPRequest, path: StoragePath) -> HTTPResponse? {
        guard let maker, let raw = request.query, let query = ViewQuery(raw),
              let size = query.value("thumb").flatMap({ ThumbnailSize(text: Substring($0)) }),
              MediaKind(name: path.name) != nil, let (fd, stat, _) = FileTree.openServedFile(path) else { return nil }
        defer { fd.close() }
        let known = TagKey(version: RecentRecords.Version(stat), pixels: size.pixels)
        let tag: String
        if let remembered = tags[known] {
            tag = remembered
        } else {
            tag = maker.tag(key: contentKey(fd, stat), size: size)
            tags.remember(tag, for: known)
        }
        let etag = "\"t\(tag)\""
        if let current = Self.notModified(request, etag: etag) { return current }
        guard let thumb = maker.cached(tag: tag) else {
            // Worked out again next time: the work thread may make it under another key (a record written since).
            tags.forget(known)
            return nil
        }
        return Self.answer(thumb, etag: etag)
    }

    private func thumbnail(_ request: HTTPRequest, _ maker: Thumbnailer, _ entry: FileTree.Entry, _ path: StoragePath,
                           _ kind: MediaKind, _ size: ThumbnailSize) -> HTTPResponse {
        guard let fd = try? entry.target.openFile() else { return .text(404, "not found: \(path.relative)") }
        defer { fd.close() }
        guard let status = try? fd.status(path: ""), status.isRegular else { return .text(404, "not found: \(path.relative)") }
        let key = contentKey(fd, FileStat(status))
        let etag = "\"t\(maker.tag(key: key, size: size))\""
        if let current = Self.notModified(request, etag: etag) { return current }
        switch maker.thumbnail(of: fd, kind: kind, key: key, size: size) {
        case let .success(thumb):
            return Self.answer(thumb, etag: etag)
        case let .failure(error):
            return .text(Self.status(of: error), "no thumbnail of \(path.relative): \(error)", headers: ["Cache-Control": "no-store"])
        }
    }

    /// The 304 for a client whose copy is current. Weak comparison, `*` matching any (RFC 9110 §13.1.2).
    static func notModified(_ request: HTTPRequest, etag: String) -> HTTPResponse? {
        guard let match = request.headers["If-None-Match"],
              EntityTag.parseList(match)?.contains(where: { EntityTag.weakMatch($0, etag) }) ?? true else { return nil }
        return HTTPResponse(status: 304, headers: ["ETag": etag, "Cache-Control": cacheControl])
    }

    static func answer(_ thumb: Thumbnail, etag: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["Content-Type": "image/jpeg", "ETag": etag, "Cache-Control": cacheControl],
                     body: .bytes(thumb.jpeg))
    }

    /// The file's SHA-256 when its digest record still describes it (the same content anywhere shares its
    /// thumbnails, and a copy needs none made); else its identity on disk, which changes with every write.
    private func contentKey(_ fd: FileDescriptor, _ stat: FileStat) -> String {
        if let record = digests.load(fd: fd, stat: stat) { return "sha256:" + record.sha256.hexString }
        return "file:\(stat.device):\(stat.inode):\(stat.size):\(stat.mtime.seconds).\(stat.mtime.nanoseconds)"
    }

    static func status(of error: ThumbnailError) -> Int {
        switch error {
        case .undecodable, .tooLarge: 415
        case .noVideoDecoder: 501
        case .timedOut, .unavailable: 503
        }
    }
}

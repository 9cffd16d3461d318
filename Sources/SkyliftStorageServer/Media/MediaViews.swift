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
            return Timeline(maker: maker, dates: dates).respond(query, folder: entry, path: path, scope: scope)
        }
        guard let size = query.value("thumb").flatMap({ ThumbnailSize(text: Substring($0)) }) else {
            return .text(400, "thumb must be one of \(ThumbnailSize.allCases.map { String($0.pixels) }.joined(separator: ", "))")
        }
        guard !entry.stat.isDirectory else { return .text(400, "not a file: \(path.relative)") }
        guard let kind = MediaKind(name: path.name) else { return .text(415, "not an image or video: \(path.relative)") }
        return thumbnail(request, maker, entry, path, kind, size)
    }

    private func thumbnail(_ request: HTTPRequest, _ maker: Thumbnailer, _ entry: FileTree.Entry, _ path: StoragePath,
                           _ kind: MediaKind, _ size: ThumbnailSize) -> HTTPResponse {
        guard let fd = try? entry.target.openFile() else { return .text(404, "not found: \(path.relative)") }
        defer { fd.close() }
        guard let status = try? fd.status(path: ""), status.isRegular else { return .text(404, "not found: \(path.relative)") }
        let key = contentKey(fd, status)
        let etag = "\"t\(maker.tag(key: key, size: size))\""
        // Weak comparison, `*` matching any (RFC 9110 §13.1.2): the browser revalidating its copy gets no body.
        if let match = request.headers["If-None-Match"], EntityTag.parseList(match)?.contains(where: { EntityTag.weakMatch($0, etag) }) ?? true {
            return HTTPResponse(status: 304, headers: ["ETag": etag, "Cache-Control": Self.cacheControl])
        }
        switch maker.thumbnail(of: fd, kind: kind, key: key, size: size) {
        case let .success(thumb):
            return HTTPResponse(status: 200, headers: ["Content-Type": "image/jpeg", "ETag": etag, "Cache-Control": Self.cacheControl],
                                body: .bytes(thumb.jpeg))
        case let .failure(error):
            return .text(Self.status(of: error), "no thumbnail of \(path.relative): \(error)", headers: ["Cache-Control": "no-store"])
        }
    }

    /// The file's SHA-256 when its digest record still describes it (the same content anywhere shares its
    /// thumbnails, and a copy needs none made); else its identity on disk, which changes with every write.
    private func contentKey(_ fd: FileDescriptor, _ status: FileStatus) -> String {
        if let record = digests.load(fd: fd, stat: FileStat(status)) { return "sha256:" + record.sha256.hexString }
        return "file:\(status.device):\(status.inode):\(status.size):\(status.modifiedSeconds).\(status.modifiedNanoseconds)"
    }

    static func status(of error: ThumbnailError) -> Int {
        switch error {
        case .undecodable, .tooLarge: 415
        case .noVideoDecoder: 501
        case .timedOut, .unavailable: 503
        }
    }
}

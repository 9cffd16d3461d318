import Foundation
import SkyliftCore
import SkyliftHTTPServer
import SkyliftSystem
import SkyliftThumbnails
import Synchronization

/// `GET <file>?thumb=<size>` over a bucket: a JPEG thumbnail of an image, made by the same ``Thumbnailer`` as on a
/// folder store and kept in a local cache folder, keyed by the SHA-256 the object's metadata records (else by its
/// ETag), so a gallery asks the bucket for nothing but the listing once the thumbnails are made. To make one, the
/// image (at most ``largestImage`` bytes) is read into an unlinked file in the cache folder, which is gone when the
/// thumbnail is made. Poster frames of videos are not made over a bucket (a video would be read whole): 501.
final class BucketThumbnails: Sendable {
    let folder: String?
    let backend: BucketBackend
    private let options: ThumbnailOptions?
    /// The maker, started by the first thumbnail asked for (a server that makes none never loads libvips and its
    /// threads); inside, nil when it could not start: the view then answers 503.
    private let started = Mutex<Thumbnailer??>(nil)
    /// The largest image read to make a thumbnail.
    static let largestImage: Int64 = 64 << 20

    init(backend: BucketBackend, configuration: StorageConfiguration) {
        self.backend = backend
        folder = configuration.thumbnailFolder?.path
        options = folder.map { folder in
            var options = ThumbnailOptions(cacheFolder: folder)
            options.cacheBytes = configuration.thumbnailCacheBytes
            if let threads = configuration.thumbnailThreads { options.threads = threads }
            return options
        }
    }

    private var maker: Thumbnailer? {
        started.withLock { started in
            if let tried = started { return tried }
            let maker = options.flatMap { try? Thumbnailer(options: $0) }
            started = .some(maker)
            return maker
        }
    }

    /// The answer to `?thumb=…` for `path`; nil for any other query.
    func respond(_ request: HTTPRequest, path: StoragePath) -> HTTPResponse? {
        guard let raw = request.query, raw.hasPrefix("thumb=") else { return nil }
        guard let query = ViewQuery(raw) else { return .text(400, "malformed query") }
        guard let size = query.value("thumb").flatMap({ ThumbnailSize(text: Substring($0)) }) else {
            return .text(400, "thumb must be one of \(ThumbnailSize.allCases.map { String($0.pixels) }.joined(separator: ", "))")
        }
        guard let folder, let maker else {
            return .text(503, "thumbnails are not available: libvips did not start or no cache folder was given")
        }
        let item: StoredItem
        do {
            guard let found = try backend.item(path) else { return .text(404, "not found: \(path.relative)") }
            item = found
        } catch { return error.response }
        guard !item.isFolder else { return .text(400, "not a file: \(path.relative)") }
        switch MediaKind(name: path.name) {
        case nil: return .text(415, "not an image or video: \(path.relative)")
        case .video?: return .text(501, "poster frames of videos are not made over an S3 store: \(path.relative)")
        case .image?: break
        }
        let key = item.sha256.map { "sha256:" + $0.hexString } ?? "etag:" + (item.etag ?? "") + ":\(item.size)"
        let tag = maker.tag(key: key, size: size)
        let etag = "\"t\(tag)\""
        if let current = MediaViews.notModified(request, etag: etag) { return current }
        if let thumb = maker.cached(tag: tag) { return MediaViews.answer(thumb, etag: etag) }
        guard item.size <= Self.largestImage else {
            return .text(413, "\(path.relative) is larger than the \(Self.largestImage >> 20) MiB read for a thumbnail")
        }
        let fd: FileDescriptor
        switch download(path, item, into: folder) {
        case let .value(opened): fd = opened
        case let .refused(response): return response
        }
        defer { fd.close() }
        switch maker.thumbnail(of: fd, kind: .image, key: key, size: size) {
        case let .success(thumb): return MediaViews.answer(thumb, etag: etag)
        case let .failure(error):
            return .text(MediaViews.status(of: error), "no thumbnail of \(path.relative): \(error)", headers: ["Cache-Control": "no-store"])
        }
    }

    /// The object's bytes (the version `item` describes) in an unlinked file of the cache folder, open for reading.
    private func download(_ path: StoragePath, _ item: StoredItem, into folder: String) -> Checked<FileDescriptor> {
        let name = folder + "/.download-" + UUID().uuidString
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(name, .readWrite, options: [.create, .exclusive, .noFollow]) } catch {
            return .refused(.text(503, "cannot make a thumbnail of \(path.relative): the cache folder takes no file"))
        }
        // Nothing is left behind, whatever happens next: the file lives on only through the descriptor.
        FileSystem.unlink(name)
        let store = backend.store, key = BucketBackend.key(path), etag = item.etag
        do {
            let written = try backend.wait("read", path) { () async throws -> Int64 in
                let response = try await store.read(key, ifMatch: etag)
                var offset: Int64 = 0
                for try await chunk in response.body {
                    try chunk.withUnsafeBytes { try fd.writeAll($0, at: offset, path: name) }
                    offset += Int64(chunk.count)
                    if offset > Self.largestImage { break }
                }
                return offset
            }
            guard written == item.size else {
                fd.close()
                return .refused(.text(502, "\(path.relative) changed while it was read for a thumbnail"))
            }
        } catch {
            fd.close()
            return .refused(error.response)
        }
        return .value(fd)
    }
}

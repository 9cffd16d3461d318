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
/// thumbnail is made. A video's poster frame is taken from its first and last ``videoEnds`` bytes only, in a sparse
/// file of the video's length: the frame about a second in lies near the start, and an MP4 or MOV keeps its index
/// at one end or the other, so a video of gigabytes costs two ranged reads, not a read of it all.
final class BucketThumbnails: Sendable {
    let folder: String?
    let backend: BucketBackend
    private let options: ThumbnailOptions?
    /// The maker, started by the first thumbnail asked for (a server that makes none never loads libvips and its
    /// threads); inside, nil when it could not start: the view then answers 503.
    private let started = Mutex<Thumbnailer??>(nil)
    /// The largest image read to make a thumbnail.
    static let largestImage: Int64 = 64 << 20
    /// Bytes read from each end of a video for its poster frame (all of a video up to twice this).
    static let videoEnds: Int64 = 16 << 20
    /// Capture dates of photos already read (see `BucketThumbnails+Dates`), by path, ETag and size; nil inside: read,
    /// and no date in it.
    let dates = BoundedMemo<String, Date?>(capacity: TakenDates.maxEntries)

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

    var maker: Thumbnailer? {
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
        guard let kind = MediaKind(name: path.name) else { return .text(415, "not an image or video: \(path.relative)") }
        let key = item.sha256.map { "sha256:" + $0.hexString } ?? "etag:" + (item.etag ?? "") + ":\(item.size)"
        let tag = maker.tag(key: key, size: size)
        let etag = "\"t\(tag)\""
        if let current = MediaViews.notModified(request, etag: etag) { return current }
        if let thumb = maker.cached(tag: tag) { return MediaViews.answer(thumb, etag: etag) }
        guard kind == .video || item.size <= Self.largestImage else {
            return .text(413, "\(path.relative) is larger than the \(Self.largestImage >> 20) MiB read for a thumbnail")
        }
        let fd: FileDescriptor
        switch download(path, item, ranges: Self.ranges(kind, size: item.size), into: folder) {
        case let .value(opened): fd = opened
        case let .refused(response): return response
        }
        defer { fd.close() }
        switch maker.thumbnail(of: fd, kind: kind, key: key, size: size) {
        case let .success(thumb): return MediaViews.answer(thumb, etag: etag)
        case let .failure(error):
            return .text(MediaViews.status(of: error), "no thumbnail of \(path.relative): \(error)", headers: ["Cache-Control": "no-store"])
        }
    }

    /// What of a file of `size` bytes is read for its thumbnail: all of an image; all of a short video, else its two ends.
    static func ranges(_ kind: MediaKind, size: Int64) -> [ByteRange] {
        guard kind == .video, size > 2 * videoEnds else { return [ByteRange(offset: 0, length: size)] }
        return [ByteRange(offset: 0, length: videoEnds), ByteRange(offset: size - videoEnds, length: videoEnds)]
    }

    /// The object's `ranges` (of the version `item` describes) at their offsets in an unlinked file of the cache
    /// folder as long as the object (sparse between them), open for reading.
    func download(_ path: StoragePath, _ item: StoredItem, ranges: [ByteRange], into folder: String) -> Checked<FileDescriptor> {
        let name = folder + "/.download-" + UUID().uuidString
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(name, .readWrite, options: [.create, .exclusive, .noFollow]) } catch {
            return .refused(.text(503, "cannot make a thumbnail of \(path.relative): the cache folder takes no file"))
        }
        // Nothing is left behind, whatever happens next: the file lives on only through the descriptor.
        FileSystem.unlink(name)
        let store = backend.store, key = BucketBackend.key(path), etag = item.etag
        do { try fd.setLength(item.size, path: name) } catch {
            fd.close()
            return .refused(.text(503, "cannot make a thumbnail of \(path.relative): the cache folder takes no file of \(item.size) bytes"))
        }
        do {
            let written = try backend.wait("read", path) { () async throws -> Int64 in
                var total: Int64 = 0
                for range in ranges where range.length > 0 {
                    let response = try await store.read(key, range: range, ifMatch: etag)
                    var offset = range.offset
                    for try await chunk in response.body {
                        guard offset - range.offset + Int64(chunk.count) <= range.length else { return -1 }
                        try chunk.withUnsafeBytes { try fd.writeAll($0, at: offset, path: name) }
                        offset += Int64(chunk.count)
                    }
                    total += offset - range.offset
                }
                return total
            }
            guard written == ranges.reduce(0, { $0 + $1.length }) else {
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

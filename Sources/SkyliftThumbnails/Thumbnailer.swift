import Foundation
import SkyliftCore
import SkyliftHashing
import SkyliftSystem
import Synchronization

/// Makes JPEG thumbnails of images (libvips, shrink-on-load, EXIF orientation applied) and poster frames of videos
/// (an `ffmpeg` child), caches them on disk, and reads photos' capture dates.
///
/// Thumbnails are made on the `skylift-thumbs` `BlockingExecutor` of SkyliftSystem (``ThumbnailOptions/threads`` threads), so a
/// gallery of thousands queues there instead of taking every core; a thumbnail asked for again while it is being
/// made is made once, and every asker gets it. ``thumbnail(of:kind:key:size:)`` blocks its calling thread (a
/// connection thread of the HTTP server) until the answer is there.
public final class Thumbnailer: Sendable {
    /// The options it was made with.
    public let options: ThumbnailOptions
    private let cache: ThumbnailCache
    private let executor: BlockingExecutor
    private let poster: PosterFrame?
    private let flights = Mutex<[String: Flight]>([:])
    /// Entries whose file did not decode (or was too large): asked again, they are refused without decoding.
    /// A changed file has another key. Emptied past ``maxRemembered``.
    private let refused = BoundedMemo<String, ThumbnailError>(capacity: maxRemembered)
    static let maxRemembered = 10_000
    private let counts = Mutex(ThumbnailCounters())

    /// Opens the cache (reading its index); throws ``ThumbnailError/unavailable(reason:)`` when it cannot be.
    /// libvips starts with the first thumbnail made, so a server that makes none never pays its memory (about
    /// 20 MiB resident once started); a libvips that cannot start fails each thumbnail with `unavailable`.
    public init(options: ThumbnailOptions) throws(ThumbnailError) {
        self.options = options
        do { cache = try ThumbnailCache(folder: options.cacheFolder, limit: options.cacheBytes, memoryLimit: options.memoryBytes) } catch {
            throw .unavailable(reason: "cannot open the thumbnail cache: \(error)")
        }
        executor = BlockingExecutor(name: "skylift-thumbs", threads: max(1, options.threads))
        let ffmpeg = options.ffmpeg ?? PosterFrame.find(in: ProcessInfo.processInfo.environment["PATH"])
        poster = ffmpeg.map { PosterFrame(ffmpeg: $0, timeout: options.posterTimeout) }
    }

    /// What has been done so far.
    public var counters: ThumbnailCounters { counts.withLock { $0 } }

    /// Bytes in the disk cache now.
    public var cachedBytes: Int64 { cache.totalBytes }

    /// Bytes of cached thumbnails also held in memory now (at most ``ThumbnailOptions/memoryBytes``).
    public var memoryBytes: Int { cache.memoryBytes }

    /// The thumbnail of the open file `file`, whose content `key` names (its SHA-256, or anything else that
    /// changes whenever the content does). From the cache when there; otherwise made on the executor while
    /// this thread waits. The descriptor must stay open until this returns.
    public func thumbnail(of file: FileDescriptor, kind: MediaKind, key: String, size: ThumbnailSize) -> Result<Thumbnail, ThumbnailError> {
        let tag = tag(key: key, size: size)
        if let hit = cached(tag: tag) { return .success(hit) }
        let name = tag + ThumbnailCache.suffix
        if let error = refused[name] { return .failure(error) }
        let (flight, first) = flights.withLock { table -> (Flight, Bool) in
            if let existing = table[name] { return (existing, false) }
            let made = Flight()
            table[name] = made
            return (made, true)
        }
        guard first else {
            counts.withLock { $0.joined += 1 }
            return flight.wait()
        }
        let fd = file.rawValue
        executor.execute { [self] in
            let result = make(fd: fd, kind: kind, name: name, tag: tag, size: size)
            flights.withLock { $0[name] = nil }
            flight.finish(result)
        }
        return flight.wait()
    }

    /// The thumbnail named `tag` (see ``tag(key:size:)``) when the cache holds it; nil otherwise. Never decodes
    /// or waits on the executor: for answering on an event loop, which hands anything else to
    /// ``thumbnail(of:kind:key:size:)``.
    public func cached(tag: String) -> Thumbnail? {
        guard let bytes = cache.read(tag + ThumbnailCache.suffix) else { return nil }
        counts.withLock { $0.cacheHits += 1 }
        return Thumbnail(jpeg: bytes, tag: tag)
    }

    /// Runs on the executor: the cache is asked again first (a flight that ended just before this one began
    /// has stored its thumbnail), then the file is decoded.
    private func make(fd: Int32, kind: MediaKind, name: String, tag: String, size: ThumbnailSize) -> Result<Thumbnail, ThumbnailError> {
        if let hit = cached(tag: tag) { return .success(hit) }
        counts.withLock {
            $0.running += 1
            $0.peakRunning = max($0.peakRunning, $0.running)
        }
        defer { counts.withLock { $0.running -= 1 } }
        let made = decode(fd: fd, kind: kind, size: size.pixels)
        Vips.endOfJob()
        guard case let .success(jpeg) = made else {
            if case let .failure(error) = made {
                counts.withLock { $0.failed += 1 }
                remember(error, for: name)
            }
            return made.map { Thumbnail(jpeg: $0, tag: tag) }
        }
        counts.withLock { $0.made += 1 }
        cache.store(name, jpeg)
        return .success(Thumbnail(jpeg: jpeg, tag: tag))
    }

    /// Keeps a refusal that would come again for the same content (not a time-out or a missing program).
    private func remember(_ error: ThumbnailError, for name: String) {
        switch error {
        case .undecodable, .tooLarge:
            refused.remember(error, for: name)
        case .noVideoDecoder, .timedOut, .unavailable: break
        }
    }

    private func decode(fd: Int32, kind: MediaKind, size: Int) -> Result<[UInt8], ThumbnailError> {
        switch kind {
        case .image:
            return Vips.dimensions(fd: fd).flatMap { width, height in
                width * height > options.maxPixels ? .failure(.tooLarge(width: width, height: height))
                    : Vips.thumbnail(fd: fd, size: size, quality: options.quality)
            }
        case .video:
            guard let poster else { return .failure(.noVideoDecoder) }
            return poster.frame(fd: fd, size: size).flatMap { Vips.thumbnail(bytes: $0, size: size, quality: options.quality) }
        }
    }

    /// The name of the thumbnail of `key` at `size` (what ``Thumbnail/tag`` will be), known without making it:
    /// for answering a conditional request from the validator alone.
    public func tag(key: String, size: ThumbnailSize) -> String {
        String(Self.entryName(key: key, size: size).dropLast(ThumbnailCache.suffix.count))
    }

    /// The cache file of `key` at `size`: the SHA-256 of both, hex, so any key text makes a safe, fixed-length name.
    static func entryName(key: String, size: ThumbnailSize) -> String {
        Digest.hash(.sha256, Array("skylift-thumb/1 \(size.pixels) \(key)".utf8)).prefix(20).hexString + ThumbnailCache.suffix
    }

    /// When the photo in `file` was taken: EXIF `DateTimeOriginal` (with `OffsetTimeOriginal` when recorded),
    /// read from the header without decoding pixels, on the calling thread; nil when the file has none.
    public func takenDate(of file: FileDescriptor) -> Date? {
        let original = "exif-ifd2-DateTimeOriginal", offset = "exif-ifd2-OffsetTimeOriginal"
        guard case let .success(fields) = Vips.fields(fd: file.rawValue, [original, offset]),
              let date = fields[original] else { return nil }
        return PhotoDate.parse(date, offset: fields[offset]) ?? PhotoDate.parse(date)
    }
}

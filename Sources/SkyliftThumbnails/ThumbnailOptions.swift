import Foundation

/// How a ``Thumbnailer`` works: where its cache is, how large it may grow, how many thumbnails it makes at once,
/// and the limits it puts on outside files.
public struct ThumbnailOptions: Sendable {
    /// The folder of cached thumbnails (created 0700); it survives restarts.
    public var cacheFolder: String
    /// Most bytes of thumbnails kept; the least recently used go first past it. Default 512 MiB.
    public var cacheBytes: Int64 = 512 << 20
    /// Thumbnails made at once (the `skylift-thumbs` executor's threads); more requests wait their turn.
    /// Default: the number of cores, at least 2 and at most 8.
    public var threads: Int = min(8, max(2, ProcessInfo.processInfo.activeProcessorCount))
    /// Largest picture decoded, in pixels (width × height from the header): larger ones are refused before
    /// any pixel is read. Default 256 megapixels.
    public var maxPixels: Int = 256_000_000
    /// JPEG quality of the thumbnails (1–100).
    public var quality: Int = 80
    /// The `ffmpeg` program for poster frames; nil: looked up on `PATH` (videos get no thumbnail without it).
    public var ffmpeg: String?
    /// Seconds an `ffmpeg` child may run before it is killed.
    public var posterTimeout: Double = 30

    public init(cacheFolder: String) {
        self.cacheFolder = cacheFolder
    }
}

/// What a ``Thumbnailer`` has done since it was made (diagnostics, tests, the benchmark).
public struct ThumbnailCounters: Sendable, Equatable {
    /// Thumbnails decoded and encoded (cache misses that were made).
    public var made = 0
    /// Files that were decoded and failed (not counting refusals remembered from an earlier failure).
    public var failed = 0
    /// Answers read from the disk cache.
    public var cacheHits = 0
    /// Requests that waited for the same thumbnail another request was already making.
    public var joined = 0
    /// Most thumbnails being made at the same moment.
    public var peakRunning = 0
    /// Thumbnails being made now.
    public var running = 0
}

/// A JPEG thumbnail and the name it is cached under (a hex string that changes with the file and the size:
/// the basis of its entity tag).
public struct Thumbnail: Sendable {
    public let jpeg: [UInt8]
    public let tag: String
}

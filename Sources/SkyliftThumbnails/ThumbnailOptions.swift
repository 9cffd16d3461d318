import Foundation

/// How a ``Thumbnailer`` works: where its cache is, how large it may grow, how many thumbnails it makes at once,
/// and the limits it puts on outside files.
public struct ThumbnailOptions: Sendable {
    /// The folder of cached thumbnails (created 0700); it survives restarts.
    public var cacheFolder: String
    /// Most bytes of thumbnails kept; the least recently used go first past it. Default 512 MiB.
    public var cacheBytes: Int64 = 512 << 20
    /// Most bytes of the most recently used thumbnails also kept in memory, so a gallery's screenful is answered
    /// without reading the disk cache. Default 16 MiB (a thousand or more 256-pixel thumbnails); 0 keeps none.
    public var memoryBytes: Int = 16 << 20
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

    /// Options with every default, the cache in `cacheFolder`.
    public init(cacheFolder: String) {
        self.cacheFolder = cacheFolder
    }
}

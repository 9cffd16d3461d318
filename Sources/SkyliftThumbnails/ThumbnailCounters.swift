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

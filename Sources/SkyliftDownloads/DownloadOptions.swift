import SkyliftCore

/// How a download runs.
public struct DownloadOptions: Sendable {
    /// Files fetched at once.
    public var jobs: Int
    /// Ranges of one large file fetched at once (1: one sequential read).
    public var parts: Int
    /// Files at least this large are fetched in `parts` ranges.
    public var partThreshold: Int64
    /// Fail a file the remote serves no digest for, instead of taking it on its length.
    public var verify: Bool
    /// Remove local files below the destination that a folder source no longer has.
    public var delete: Bool
    /// Retries of one read after a transient failure (network cut, 5xx, throttling).
    public var retry: RetryPolicy
    /// Files at least this large get a resume record; smaller ones simply start over after a crash.
    public var resumableSize: Int64
    /// Bytes a range reads between two checkpoints of its progress (flush, then record).
    public var checkpointBytes: Int64

    public init(jobs: Int = 4, parts: Int = 1, partThreshold: Int64 = 8 << 20, verify: Bool = false, delete: Bool = false,
                retry: RetryPolicy = RetryPolicy(), resumableSize: Int64 = 1 << 20, checkpointBytes: Int64 = 16 << 20) {
        self.jobs = max(1, jobs)
        self.parts = max(1, parts)
        self.partThreshold = partThreshold
        self.verify = verify
        self.delete = delete
        self.retry = retry
        self.resumableSize = resumableSize
        self.checkpointBytes = checkpointBytes
    }
}

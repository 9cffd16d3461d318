/// S3's limits on multipart uploads, and the part size Skylift picks within them.
public enum S3PartSize {
    /// S3's lower bound for every part but the last.
    public static let smallest: Int64 = 5 << 20
    /// S3's upper bound on the number of parts.
    public static let maximumParts: Int64 = 10_000
    /// The part size when none is asked for.
    public static let standard: Int64 = 8 << 20

    /// The part size for `length` bytes: at least `minimum` (and 5 MiB), large enough that 10,000 parts cover
    /// it, rounded up to whole MiB.
    public static func forObject(length: Int64, minimum: Int64) -> Int64 {
        let needed = length / maximumParts + 1
        let mib: Int64 = 1 << 20
        let rounded = needed > Int64.max - mib ? needed : (needed + mib - 1) / mib * mib
        return max(minimum, smallest, rounded)
    }
}

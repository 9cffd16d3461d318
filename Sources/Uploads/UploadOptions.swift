import Foundation
import SkyliftCore

/// How an upload behaves.
public struct UploadOptions: Sendable {
    /// Upload even when the destination already holds the same content.
    public var force: Bool
    /// Read the object back (or use a server digest) and compare SHA-256 after the upload.
    public var verify: Bool
    /// Backoff for transient failures; attempts count since the last part the server confirmed.
    public var retry: RetryPolicy
    /// Largest PATCH body. Each part is digested (when the server checks parts) and then streamed, so this
    /// bounds what a failure re-sends, not memory.
    public var partLength: Int64
    /// Parts of one file in flight at once, where the remote takes parts in any order (S3 multipart). Each
    /// streams from the source, so memory grows with this by a few buffers, not by a part.
    public var parts: Int
    /// Seconds between progress events.
    public var progressInterval: Double

    /// Parts in flight per file unless asked otherwise.
    public static let defaultParts = 4

    public init(force: Bool = false, verify: Bool = false, retry: RetryPolicy = RetryPolicy(),
                partLength: Int64 = 64 << 20, parts: Int = UploadOptions.defaultParts, progressInterval: Double = 0.25) {
        self.force = force
        self.verify = verify
        self.retry = retry
        self.partLength = max(1, partLength)
        self.parts = min(max(1, parts), 64)
        self.progressInterval = max(0.25, progressInterval)
    }
}

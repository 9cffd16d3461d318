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
    /// Backoff for removing a partial upload (tus termination, S3 abort): a DELETE refused with 423 while the server
    /// still finishes the PATCH that was cut, a network error or a 5xx is tried again, for about half a minute at most.
    public var cleanupRetry = RetryPolicy(maxAttempts: 9, baseDelay: 0.5, maxDelay: 8)
    /// Largest PATCH body. Each part is digested (when the server checks parts) and then streamed, so this
    /// bounds what a failure re-sends, not memory.
    public var partLength: Int64
    /// Parts of one file in flight at once, where the remote takes parts in any order (S3 multipart; tus
    /// partial uploads, see ``tusPartials``). Each
    /// streams from the source, so memory grows with this by a few buffers, not by a part.
    public var parts: Int
    /// Partial uploads per file for a tus server offering `concatenation`, sent side by side and joined at the
    /// end (`--parts N` given explicitly). 1, the default, sends one stream: on loopback partial uploads measured
    /// slower than one stream, and every partial upload loses its block in progress to a crash.
    public var tusPartials = 1
    /// Seconds between progress events.
    public var progressInterval: Double
    /// Compare SHA-256 with the digest the server offers for the stored object (`Repr-Digest`), when it
    /// offers one, without `verify`: it costs a local re-read and no extra bytes on the network.
    public var checkServedDigest = false

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

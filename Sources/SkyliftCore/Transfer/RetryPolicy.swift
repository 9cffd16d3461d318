/// Exponential backoff with full jitter, bounded in attempts; and, apart from it, how long to wait for a server
/// that is out of space (HTTP 507), where a quick retry would only send the refused bytes again.
public struct RetryPolicy: Sendable, Hashable {
    /// Total attempts including the first; 1 means no retry.
    public var maxAttempts: Int
    /// Delay before the first retry, in seconds.
    public var baseDelay: Double
    /// Upper bound on any one delay, in seconds.
    public var maxDelay: Double
    /// Seconds to keep waiting for a server out of space before giving up; 0 (the default) gives up at the first
    /// 507, reporting what the server kept.
    public var spaceWait: Double = 0
    /// First wait for space, in seconds; each following wait doubles, up to ``spaceMaxDelay``. Minutes, because
    /// space comes back when someone frees it, not by itself.
    public var spaceBaseDelay: Double = 60
    /// Upper bound on one wait for space, in seconds.
    public var spaceMaxDelay: Double = 900

    public init(maxAttempts: Int = 8, baseDelay: Double = 0.25, maxDelay: Double = 30) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// A policy for tests: many attempts, tiny delays.
    public static let immediate = RetryPolicy(maxAttempts: 8, baseDelay: 0.001, maxDelay: 0.01)

    /// Delay before retry number `retry` (1 for the first retry), jittered in `[ceiling/2, ceiling]`.
    public func delay(beforeRetry retry: Int, random: Double = Double.random(in: 0...1)) -> Double {
        let exp = baseDelay * Double(1 << min(max(retry - 1, 0), 30))
        let ceiling = min(maxDelay, exp)
        return ceiling / 2 + ceiling / 2 * random
    }

    /// Wait number `wait` (1 for the first) for a server out of space: ``spaceBaseDelay`` doubled per wait, capped
    /// at ``spaceMaxDelay``; no jitter (the waits are long and few).
    public func spaceDelay(beforeWait wait: Int) -> Double {
        min(spaceMaxDelay, spaceBaseDelay * Double(1 << min(max(wait - 1, 0), 30)))
    }

    /// Whether another attempt is allowed after `attempts` attempts were made.
    public func allowsAnother(after attempts: Int) -> Bool { attempts < maxAttempts }
}

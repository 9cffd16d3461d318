/// Exponential backoff with full jitter, bounded in attempts.
public struct RetryPolicy: Sendable, Hashable {
    /// Total attempts including the first; 1 means no retry.
    public var maxAttempts: Int
    /// Delay before the first retry, in seconds.
    public var baseDelay: Double
    /// Upper bound on any one delay, in seconds.
    public var maxDelay: Double

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

    /// Whether another attempt is allowed after `attempts` attempts were made.
    public func allowsAnother(after attempts: Int) -> Bool { attempts < maxAttempts }
}

import Foundation

/// A snapshot of a transfer's progress, for display and for `--json` events.
public struct TransferProgress: Sendable, Hashable {
    public var completed: Int64
    public var total: Int64?
    /// Bytes per second over the recent past.
    public var rate: Double

    public init(completed: Int64, total: Int64?, rate: Double) {
        self.completed = completed
        self.total = total
        self.rate = rate
    }

    /// Estimated seconds left, when the total and a rate are known.
    public var secondsRemaining: Double? {
        guard let total, rate > 0 else { return nil }
        return Double(max(0, total - completed)) / rate
    }

    /// Fraction done in 0...1, when the total is known.
    public var fraction: Double? {
        guard let total else { return nil }
        return total == 0 ? 1 : Double(completed) / Double(total)
    }
}

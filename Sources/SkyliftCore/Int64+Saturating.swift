extension Int64 {
    /// `seconds * 1e9 + nanoseconds`, pinned to Int64's range instead of trapping: a file's timestamps are
    /// set by whoever wrote it (`touch -d @99999999999` is legal on tmpfs), and a server must not die on them.
    public static func nanoseconds(seconds: Int64, nanoseconds: Int64) -> Int64 {
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, carry) = scaled.addingReportingOverflow(nanoseconds)
        if carry { return nanoseconds < 0 ? .min : .max }
        return sum
    }
}

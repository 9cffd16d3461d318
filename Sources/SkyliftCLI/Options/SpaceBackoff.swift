import SkyliftCore

/// The wait for a server out of space (HTTP 507) that `upload`, `copy` and `watch` share: 1 minute, doubling, at
/// most 15 minutes. `SKYLIFT_SPACE_BACKOFF=SECONDS` sets the first wait (the cap stays 15 times it), so tests and
/// impatient users need not wait minutes.
enum SpaceBackoff {
    static let variable = "SKYLIFT_SPACE_BACKOFF"

    /// `policy` with the environment's first wait, when it names a positive number of seconds.
    static func applied(to policy: RetryPolicy, environment: [String: String]) -> RetryPolicy {
        var policy = policy
        if let raw = environment[variable], let first = Double(raw), first.isFinite, first > 0 {
            policy.spaceBaseDelay = first
            policy.spaceMaxDelay = first * 15
        }
        return policy
    }
}

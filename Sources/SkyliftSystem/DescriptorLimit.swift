#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`).
public enum DescriptorLimit {
    /// Raises the soft limit towards `wanted` (never past the hard limit, never lowering it) and returns the soft
    /// limit in force afterwards. A server holding thousands of idle connections needs a descriptor for each;
    /// Debian's default soft limit is 1,024 while the hard limit is far higher.
    @discardableResult
    public static func raise(toAtLeast wanted: Int) -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 1024 }
        let target = rlim_t(max(0, wanted))
        if limits.rlim_cur < target {
            var raised = limits
            raised.rlim_cur = min(target, limits.rlim_max)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        return limits.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limits.rlim_cur)
    }
}

import Foundation

/// A file's modification time as the file system keeps it: seconds since 1970 and nanoseconds within the
/// second (normalised to 0..<1e9, also before 1970).
///
/// Why not one Int64 of nanoseconds: that covers only 1677 to 2262, and a tree can hold any time. Clamped,
/// two far-future times looked alike, so a changed file kept its stale digest and ETag.
struct FileTime: Sendable, Hashable {
    var seconds: Int64
    var nanoseconds: Int64

    init(seconds: Int64, nanoseconds: Int64) {
        // A file system hands nanoseconds within 0..<1e9; anything else is folded in rather than trusted.
        let carry = nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds + 1) / 1_000_000_000 - 1
        self.seconds = seconds &+ carry
        self.nanoseconds = nanoseconds - carry * 1_000_000_000
    }

    /// Nanoseconds since 1970 when they fit an Int64 (1677 to 2262); nil outside.
    var totalNanoseconds: Int64? {
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        let (sum, overflow2) = product.addingReportingOverflow(nanoseconds)
        return overflow2 ? nil : sum
    }

    /// The time from `totalNanoseconds`.
    init(totalNanoseconds ns: Int64) {
        let seconds = ns >= 0 ? ns / 1_000_000_000 : (ns + 1) / 1_000_000_000 - 1
        self.init(seconds: seconds, nanoseconds: ns - seconds * 1_000_000_000)
    }

    /// For validators: nanoseconds in hex where they fit (so ETags of ordinary files stay as they were), else
    /// `<seconds hex>s<nanoseconds hex>`, which no in-range value can spell.
    var validatorText: String {
        if let ns = totalNanoseconds { return String(ns, radix: 16) }
        return String(seconds, radix: 16) + "s" + String(nanoseconds, radix: 16)
    }

    /// For the digest record: decimal nanoseconds where they fit, else `<seconds>.<nanoseconds>`.
    var recordText: String {
        if let ns = totalNanoseconds { return String(ns) }
        return "\(seconds).\(nanoseconds)"
    }
}

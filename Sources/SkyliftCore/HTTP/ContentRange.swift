/// A `Content-Range` response field: `bytes first-last/total`, `bytes first-last/*` or `bytes */total`
/// (RFC 9110 §14.4).
public struct ContentRange: Hashable, Sendable {
    /// First byte position; nil for `bytes */total`.
    public var first: Int64?
    /// Last byte position (inclusive); nil for `bytes */total`.
    public var last: Int64?
    /// Complete length; nil when the server wrote `*`.
    public var total: Int64?

    /// Parses a field value; nil for anything invalid, including `last < first`, `last >= total`, numbers
    /// with signs or too large for Int64, and `bytes */*`.
    public init?(_ value: String) {
        let v = value.trimmingSpaces()
        guard v.lowercased().hasPrefix("bytes ") else { return nil }
        let halves = String(v.dropFirst(6)).trimmingSpaces().split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        if halves[1] != "*" {
            guard let t = Int64(digits: String(halves[1])) else { return nil }
            total = t
        }
        if halves[0] == "*" {
            guard total != nil else { return nil }
            return
        }
        let ends = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2, let a = Int64(digits: String(ends[0])), let b = Int64(digits: String(ends[1])),
              a <= b, total.map({ b < $0 }) ?? true else { return nil }
        first = a
        last = b
    }

    /// The bytes this part holds, when it names a range.
    public var range: ByteRange? {
        guard let first, let last, last < Int64.max else { return nil }
        return ByteRange(checkedOffset: first, length: last - first + 1)
    }
}

/// How to answer a `Range` request (RFC 9110 §14.2): the one policy `serve` and `proxy` share, so neither can
/// be made to send more than the representation.
public enum RangePlan: Equatable, Sendable {
    /// Ignore the Range header and send the whole representation (200).
    case whole
    /// 416 with `Content-Range: bytes */length`.
    case unsatisfiable
    /// 206 with these ranges: one is a single part, several are `multipart/byteranges`. They never overlap or
    /// touch, and together hold at most `length` bytes.
    case partial([ByteRange])

    /// More range specs than this and the request is answered whole: many small ranges are how a client makes
    /// a server build a huge multipart body out of a small file.
    public static let maxRanges = 64

    /// The plan for `header` against a representation of `length` bytes.
    ///
    /// Too many specs, or ranges that add up to more than the representation (overlaps such as `0-,0-,0-`),
    /// get the whole representation, which RFC 9110 §14.2 allows a server to send instead. Otherwise
    /// overlapping and adjacent ranges are coalesced (§14.6 allows that whatever the order they were asked in);
    /// ranges that neither overlap nor touch keep the order of the request.
    public static func plan(_ header: RangeHeader, length: Int64) -> RangePlan {
        guard header.specs.count <= maxRanges else { return .whole }
        guard case let .satisfiable(ranges) = header.resolve(length: length) else { return .unsatisfiable }
        var total: Int64 = 0
        for r in ranges {
            let (sum, overflow) = total.addingReportingOverflow(r.length)
            guard !overflow, sum <= length else { return .whole }
            total = sum
        }
        return .partial(coalesced(ranges))
    }

    /// `ranges` with overlapping or adjacent ones merged; unchanged (request order) when none do.
    static func coalesced(_ ranges: [ByteRange]) -> [ByteRange] {
        let sorted = ranges.sorted { $0.offset < $1.offset }
        var merged: [ByteRange] = []
        for r in sorted {
            if let last = merged.last, r.offset <= last.end {
                merged[merged.count - 1] = ByteRange(offset: last.offset, length: max(last.end, r.end) - last.offset)
            } else {
                merged.append(r)
            }
        }
        return merged.count == ranges.count ? ranges : merged
    }
}

import Foundation

/// The answer to a GET of a representation of known length: `Range` planned by ``RangePlan`` (whose
/// `maxRanges` and coalescing policy it applies), `multipart/byteranges` laid out (RFC 9110 §14.6). Shared
/// by `serve` and `proxy`, which only differ in where the bytes come from.
public struct RangedResponse: Sendable {
    /// A piece of a `multipart/byteranges` body: literal part headers and boundaries, or bytes of the
    /// representation.
    public enum Part: Hashable, Sendable {
        case text([UInt8])
        case range(ByteRange)

        public var length: Int64 {
            switch self {
            case let .text(bytes): Int64(bytes.count)
            case let .range(r): r.length
            }
        }
    }

    /// What the body holds.
    public enum Body: Hashable, Sendable {
        /// 416: nothing of the representation; `Content-Range: bytes */length` is in ``headers``.
        case unsatisfiable
        /// 200: the whole representation.
        case whole(ByteRange)
        /// 206: one range.
        case single(ByteRange)
        /// 206: several ranges as `multipart/byteranges`, `length` bytes in all.
        case multipart([Part], length: Int64)
    }

    /// 200, 206 or 416.
    public let status: Int
    /// `Content-Type` and `Content-Range` as this answer needs them (no `Content-Type` for 416, whose text
    /// body is the caller's).
    public let headers: HTTPHeaders
    public let body: Body

    /// Plans the answer to a request with `requestHeaders` for a representation of `length` bytes of
    /// `contentType`. `rangeApplies` is what ``ConditionalRequest`` said about `If-Range`.
    public init(requestHeaders: HTTPHeaders, rangeApplies: Bool, length: Int64, contentType: String,
                boundary: String? = nil) {
        var plan = RangePlan.whole
        if rangeApplies, let value = requestHeaders["Range"], let parsed = RangeHeader(value) {
            plan = RangePlan.plan(parsed, length: length)
        }
        var headers = HTTPHeaders()
        switch plan {
        case .unsatisfiable:
            headers.add("Content-Range", "bytes */\(length)")
            (status, body) = (416, .unsatisfiable)
        case let .partial(ranges) where ranges.count == 1:
            headers.add("Content-Type", contentType)
            headers.add("Content-Range", ranges[0].contentRange(total: length))
            (status, body) = (206, .single(ranges[0]))
        case let .partial(ranges):
            // Made only here: most answers are whole or one range, and a boundary costs a random draw.
            let boundary = boundary ?? Self.newBoundary()
            if let (parts, bodyLength) = Self.multipart(ranges, total: length, type: contentType, boundary: boundary) {
                headers.add("Content-Type", "multipart/byteranges; boundary=\(boundary)")
                (status, body) = (206, .multipart(parts, length: bodyLength))
            } else {
                // The layout would not fit in Int64: RFC 9110 §14.2 lets a server send the whole instead.
                headers.add("Content-Type", contentType)
                (status, body) = (200, .whole(ByteRange(offset: 0, length: max(0, length))))
            }
        case .whole:
            headers.add("Content-Type", contentType)
            (status, body) = (200, .whole(ByteRange(offset: 0, length: max(0, length))))
        }
        self.headers = headers
    }

    /// `skylift-` and 32 random hex digits: never found inside a part by chance.
    public static func newBoundary() -> String {
        var random = SystemRandomNumberGenerator()
        let high = random.next() as UInt64, low = random.next() as UInt64
        let digits = String(high, radix: 16), rest = String(low, radix: 16)
        return "skylift-" + String(repeating: "0", count: 16 - digits.count) + digits
            + String(repeating: "0", count: 16 - rest.count) + rest
    }

    /// Each part's head as text, then its bytes, then the closing boundary; nil when the total length does
    /// not fit in Int64.
    static func multipart(_ ranges: [ByteRange], total: Int64, type: String, boundary: String) -> ([Part], Int64)? {
        var parts: [Part] = []
        for (i, r) in ranges.enumerated() {
            let head = (i == 0 ? "" : "\r\n") + "--\(boundary)\r\nContent-Type: \(type)\r\n"
                + "Content-Range: \(r.contentRange(total: total))\r\n\r\n"
            parts.append(.text(Array(head.utf8)))
            parts.append(.range(r))
        }
        parts.append(.text(Array("\r\n--\(boundary)--\r\n".utf8)))
        var length: Int64 = 0
        for part in parts {
            let (sum, overflow) = length.addingReportingOverflow(part.length)
            if overflow { return nil }
            length = sum
        }
        return (parts, length)
    }
}

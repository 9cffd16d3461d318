/// A parsed `Range: bytes=...` request header (RFC 9110 §14.1.2).
///
/// Parsing keeps the specs as written; ``resolve(length:)`` turns them into concrete
/// byte ranges once the representation's length is known.
public struct RangeHeader: Hashable, Sendable {
    /// One `first-last`, `first-` or `-suffix` element.
    public enum Spec: Hashable, Sendable {
        case bounded(first: Int64, last: Int64)
        case from(first: Int64)
        case suffix(length: Int64)
    }

    /// What a range request asks of a representation of a given length.
    public enum Resolution: Equatable, Sendable {
        /// Every spec was satisfiable or dropped; at least one range remains, in request order.
        case satisfiable([ByteRange])
        /// No spec overlaps the representation: answer 416 with `bytes */length`.
        case unsatisfiable
    }

    public var specs: [Spec]

    public init(specs: [Spec]) { self.specs = specs }

    /// Parses a header value; returns nil for anything that is not a valid bytes range set,
    /// which RFC 9110 says to ignore (serve the whole representation).
    ///
    /// Read on the value's bytes, in one pass and without copies: a player sends one of these with every request.
    public init?(_ value: String) {
        var value = value
        guard let specs = value.withUTF8(Self.parse), !specs.isEmpty else { return nil }
        self.specs = specs
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> [Spec]? {
        var (start, end) = trimmed(bytes, 0, bytes.count)
        let unit = Array("bytes=".utf8)
        guard end - start >= unit.count else { return nil }
        for (i, expected) in unit.enumerated() where bytes[start + i] | (expected == UInt8(ascii: "=") ? 0 : 0x20) != expected {
            return nil
        }
        start += unit.count
        var specs: [Spec] = []
        while start <= end {
            var comma = start
            while comma < end && bytes[comma] != UInt8(ascii: ",") { comma += 1 }
            let (from, to) = trimmed(bytes, start, comma)
            start = comma + 1
            if from == to { continue }
            guard let spec = spec(bytes, from, to) else { return nil }
            specs.append(spec)
        }
        return specs
    }

    /// One `first-last`, `first-` or `-suffix` element between `from` and `to`.
    private static func spec(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Spec? {
        var dash = from
        while dash < to && bytes[dash] != UInt8(ascii: "-") { dash += 1 }
        guard dash < to else { return nil }
        if dash == from {
            return number(bytes, dash + 1, to).map { .suffix(length: $0) }
        }
        guard let first = number(bytes, from, dash) else { return nil }
        if dash + 1 == to { return .from(first: first) }
        guard let last = number(bytes, dash + 1, to), last >= first else { return nil }
        return .bounded(first: first, last: last)
    }

    /// The decimal number spelled by every byte from `from` to `to`: nil when empty, not all digits, or past Int64.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Int64? {
        guard from < to else { return nil }
        var value: Int64 = 0
        for i in from ..< to {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(digit))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        return value
    }

    /// `from..<to` without the spaces and tabs at either end (HTTP optional whitespace).
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> (Int, Int) {
        var (a, b) = (from, to)
        while a < b && (bytes[a] == 0x20 || bytes[a] == 0x09) { a += 1 }
        while b > a && (bytes[b - 1] == 0x20 || bytes[b - 1] == 0x09) { b -= 1 }
        return (a, b)
    }

    /// Resolves the specs against a representation of `length` bytes.
    public func resolve(length: Int64) -> Resolution {
        var out: [ByteRange] = []
        for spec in specs {
            switch spec {
            case let .bounded(first, last):
                guard first < length else { continue }
                out.append(ByteRange(offset: first, length: min(last, length - 1) - first + 1))
            case let .from(first):
                guard first < length else { continue }
                out.append(ByteRange(offset: first, length: length - first))
            case let .suffix(n):
                guard n > 0, length > 0 else { continue }
                let take = min(n, length)
                out.append(ByteRange(offset: length - take, length: take))
            }
        }
        return out.isEmpty ? .unsatisfiable : .satisfiable(out)
    }

    /// The header value for these specs, e.g. `bytes=0-99,-5`.
    public var headerValue: String {
        "bytes=" + specs.map { spec in
            switch spec {
            case let .bounded(f, l): "\(f)-\(l)"
            case let .from(f): "\(f)-"
            case let .suffix(n): "-\(n)"
            }
        }.joined(separator: ",")
    }
}

extension Int64 {
    /// Parses a non-empty run of ASCII digits only (no sign, no spaces), as HTTP grammar wants.
    public init?(digits: String) {
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let v = Int64(digits) else {
            return nil
        }
        self = v
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP optional whitespace).
    public func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

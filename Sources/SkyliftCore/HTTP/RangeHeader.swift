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
    public init?(_ value: String) {
        let trimmed = value.trimmingSpaces()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return nil }
        let set = trimmed.dropFirst("bytes=".count)
        var specs: [Spec] = []
        for rawPart in set.split(separator: ",", omittingEmptySubsequences: false) {
            let part = String(rawPart).trimmingSpaces()
            if part.isEmpty { continue }
            guard let dash = part.firstIndex(of: "-") else { return nil }
            let a = String(part[..<dash]), b = String(part[part.index(after: dash)...])
            if a.isEmpty {
                guard let n = Int64(digits: b) else { return nil }
                specs.append(.suffix(length: n))
            } else if b.isEmpty {
                guard let first = Int64(digits: a) else { return nil }
                specs.append(.from(first: first))
            } else {
                guard let first = Int64(digits: a), let last = Int64(digits: b), last >= first else { return nil }
                specs.append(.bounded(first: first, last: last))
            }
        }
        guard !specs.isEmpty else { return nil }
        self.specs = specs
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

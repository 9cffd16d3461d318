/// The `name=value&…` pairs of a view's query (`?thumb=256&v=…`, `?timeline&after=…&limit=…`), percent-decoded.
/// The query comes from the client: it is refused whole past ``maxLength`` bytes or ``maxPairs`` pairs, and a
/// pair whose escapes do not decode to UTF-8 is refused with it.
struct ViewQuery {
    static let maxLength = 4096
    static let maxPairs = 32

    let pairs: [(name: String, value: String?)]

    /// Nil when the query breaks a bound or holds a malformed escape.
    init?(_ raw: String) {
        guard raw.utf8.count <= Self.maxLength else { return nil }
        let parts = raw.split(separator: "&", omittingEmptySubsequences: true)
        guard parts.count <= Self.maxPairs else { return nil }
        var pairs: [(String, String?)] = []
        for part in parts {
            if let eq = part.firstIndex(of: "=") {
                guard let name = Self.decode(part[..<eq]), let value = Self.decode(part[part.index(after: eq)...]) else { return nil }
                pairs.append((name, value))
            } else {
                guard let name = Self.decode(part) else { return nil }
                pairs.append((name, nil))
            }
        }
        self.pairs = pairs
    }

    /// True when `name` is there, with or without a value.
    func has(_ name: String) -> Bool { pairs.contains { $0.name == name } }

    /// The first value of `name` (empty for a bare `name` or `name=`); nil when absent.
    func value(_ name: String) -> String? { pairs.first { $0.name == name }.map { $0.value ?? "" } }

    /// `%XX` escapes and `+` (a space, as forms send it) decoded; nil for a bad escape or bytes that are not UTF-8.
    static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var it = text.utf8.makeIterator()
        while let b = it.next() {
            if b == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if b == UInt8(ascii: "%") {
                guard let h = it.next().flatMap(Self.nibble), let l = it.next().flatMap(Self.nibble) else { return nil }
                bytes.append(h << 4 | l)
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

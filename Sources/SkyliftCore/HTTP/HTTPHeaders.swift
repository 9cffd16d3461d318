/// An ordered list of header fields with case-insensitive lookup.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`, compared case-insensitively.
    public subscript(_ name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// True when two field names are equal ignoring ASCII case (RFC 9110 §5.1), compared byte by byte
    /// without making lowercased copies: this runs for every header lookup of every request.
    public static func namesMatch(_ a: String, _ b: String) -> Bool {
        // Most names compared differ in length, which native strings know without a look at their bytes.
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for i in 0 ..< x.count where x[i] != y[i] {
                    // Setting bit 5 maps A-Z onto a-z; only letters may differ that way.
                    let lx = x[i] | 0x20
                    guard lx == y[i] | 0x20, lx >= 0x61, lx <= 0x7A else { return false }
                }
                return true
            }
        }
    }

    /// A field holding a non-negative decimal integer (`Content-Length`, `Upload-Offset`): nil when absent,
    /// signed, not all digits, or too large for Int64, so a hostile value is treated as missing, never trapped on.
    public func integer(_ name: String) -> Int64? { self[name].flatMap { Int64(digits: $0.trimmingSpaces()) } }

    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    /// Replaces every field named `name` with one holding `value`.
    public mutating func set(_ name: String, _ value: String) {
        // Usually there is none to replace, or exactly this one: then the array is left alone (a removal rewrites
        // it, and an append to a shared one copies it).
        if let first = fields.firstIndex(where: { Self.namesMatch($0.name, name) }) {
            let more = fields[(first + 1)...].contains { Self.namesMatch($0.name, name) }
            if !more, fields[first].value == value { return }
            remove(name)
        }
        fields.append((name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// Names only: values may hold secrets, and this is what ends up in debug output.
    public var description: String { "HTTPHeaders(\(fields.map(\.name).joined(separator: ", ")))" }
}

/// Character data, attribute values and references. No DTD is ever read, so the five predefined entities and
/// character references are the only references there are; a reference never yields more bytes than it took.
extension XMLScanner {
    /// Appends the character data at the cursor, up to the next `<` or the end, to `out` (line ends made LF,
    /// references replaced).
    mutating func text(into out: inout [UInt8]) throws(XMLReadError) {
        while !atEnd {
            let b = bytes[at]
            switch b {
            case UInt8(ascii: "<"): return
            case UInt8(ascii: "&"): try reference(into: &out)
            case 0x0D:
                out.append(0x0A)
                at += peek(1) == 0x0A ? 2 : 1
            case UInt8(ascii: "]") where sees("]]>"):
                throw error("']]>' in text", at: at)
            default:
                try character(into: &out)
            }
        }
    }

    /// Copies one character at the cursor to `out`, checked.
    mutating func character(into out: inout [UInt8]) throws(XMLReadError) {
        let length = try scalar(at: at).length
        if length == 1 { out.append(bytes[at]) } else { out.append(contentsOf: bytes[at..<(at + length)]) }
        at += length
    }

    /// A quoted attribute value, normalised as XML 1.0 §3.3.3 says for CDATA attributes: each literal tab,
    /// LF, CR or CR LF becomes one space; references are replaced (`&#10;` stays a line feed).
    mutating func attributeValue(maxBytes: Int) throws(XMLReadError) -> String {
        guard let quote = peek(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw unexpected("a quoted attribute value")
        }
        at += 1
        var out: [UInt8] = []
        while true {
            guard let b = peek() else { throw unexpected("the closing quote of an attribute value") }
            switch b {
            case quote:
                at += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "<"): throw error("'<' in an attribute value", at: at)
            case UInt8(ascii: "&"): try reference(into: &out)
            case 0x0D:
                out.append(0x20)
                at += peek(1) == 0x0A ? 2 : 1
            case 0x09, 0x0A:
                out.append(0x20)
                at += 1
            default: try character(into: &out)
            }
            guard out.count <= maxBytes else { throw .textTooLong(limit: maxBytes) }
        }
    }

    /// Replaces the reference at the cursor (`&name;`, `&#digits;`, `&#xhex;`) in `out`.
    mutating func reference(into out: inout [UInt8]) throws(XMLReadError) {
        let start = at
        at += 1
        if peek() == UInt8(ascii: "#") {
            at += 1
            let value = try characterReference(start: start)
            guard let scalar = Unicode.Scalar(value), Self.isXMLCharacter(value) else {
                throw error("a character reference to a character XML does not allow", at: start)
            }
            out.append(contentsOf: String(scalar).utf8)
            return
        }
        let name = try qualifiedName("an entity name after '&'")
        guard peek() == UInt8(ascii: ";") else { throw error("a reference without its ';'", at: start) }
        at += 1
        switch name {
        case "amp": out.append(UInt8(ascii: "&"))
        case "lt": out.append(UInt8(ascii: "<"))
        case "gt": out.append(UInt8(ascii: ">"))
        case "quot": out.append(UInt8(ascii: "\""))
        case "apos": out.append(UInt8(ascii: "'"))
        default: throw error("a reference to an undeclared entity", at: start)
        }
    }

    /// The number of `&#…;` (cursor after `#`), stopping at the first digit that takes it past U+10FFFF.
    private mutating func characterReference(start: Int) throws(XMLReadError) -> UInt32 {
        let hex = peek() == UInt8(ascii: "x")
        if hex { at += 1 }
        var value: UInt32 = 0, digits = 0
        while let b = peek(), b != UInt8(ascii: ";") {
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("a malformed character reference", at: start)
            }
            value = value * (hex ? 16 : 10) + digit
            guard value <= 0x10FFFF else { throw error("a character reference past U+10FFFF", at: start) }
            digits += 1
            at += 1
        }
        guard digits > 0, peek() == UInt8(ascii: ";") else { throw error("a malformed character reference", at: start) }
        at += 1
        return value
    }

    /// XML 1.0's Char production: what a document may contain, written or referenced.
    static func isXMLCharacter(_ v: UInt32) -> Bool {
        switch v {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}

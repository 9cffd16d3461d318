/// Names and tags: a start tag with its attributes as written (namespaces are resolved by the caller), an
/// end tag's name.
extension XMLScanner {
    /// A start tag as written. `offset` is where its `<` stands, for errors found later.
    struct Tag {
        var qualified: String
        var attributes: [(qualified: String, value: String)]
        var isEmpty: Bool
        var offset: Int
    }

    /// Reads a start tag; the cursor is on its `<`. At most `maxAttributes` attributes (namespace
    /// declarations included), each value at most `maxValueBytes` long.
    mutating func startTag(maxAttributes: Int, maxValueBytes: Int) throws(XMLReadError) -> Tag {
        let offset = at
        at += 1
        var tag = Tag(qualified: try qualifiedName("an element name"), attributes: [], isEmpty: false, offset: offset)
        while true {
            let spaced = skipSpace()
            tag.isEmpty = skip("/>")
            if tag.isEmpty || skip(">") {
                // One set per element with attributes: linear, where comparing each with each would not be.
                if tag.attributes.count > 1, Set(tag.attributes.map(\.qualified)).count < tag.attributes.count {
                    throw error("an attribute given twice", at: offset)
                }
                return tag
            }
            guard spaced else { throw unexpected("white space, '>' or '/>'") }
            let name = try qualifiedName("an attribute name")
            skipSpace()
            try expect(UInt8(ascii: "="), "'=' after an attribute name")
            skipSpace()
            let value = try attributeValue(maxBytes: maxValueBytes)
            guard tag.attributes.count < maxAttributes else { throw .tooManyAttributes(limit: maxAttributes) }
            tag.attributes.append((name, value))
        }
    }

    /// Reads an end tag's name; the cursor is on its `</`.
    mutating func endTag() throws(XMLReadError) -> String {
        at += 2
        let name = try qualifiedName("an element name")
        skipSpace()
        try expect(UInt8(ascii: ">"), "'>' closing an end tag")
        return name
    }

    /// A name as Namespaces in XML allows it: one or two NCNames joined by a single colon.
    mutating func qualifiedName(_ what: String) throws(XMLReadError) -> String {
        let start = at
        var colon: Int?
        while !atEnd {
            let b = bytes[at], first = at == start || colon == at - 1
            if b < 0x80 {
                guard Self.asciiNameByte(b, first: first) else { break }
                if b == UInt8(ascii: ":") {
                    guard colon == nil else { throw error("a name with two colons", at: at) }
                    colon = at
                }
                at += 1
            } else {
                guard let (value, length) = try? scalar(at: at), Self.isNameScalar(value, first: first) else { break }
                at += length
            }
        }
        guard at > start else { throw unexpected(what) }
        if let colon, colon == start || colon == at - 1 { throw error("a name that starts or ends with a colon", at: start) }
        return String(decoding: bytes[start..<at], as: UTF8.self)
    }

    private static func asciiNameByte(_ b: UInt8, first: Bool) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"), UInt8(ascii: ":"):
            true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."): !first
        default: false
        }
    }

    /// XML 1.0 (fifth edition) NameStartChar and NameChar outside ASCII.
    static func isNameScalar(_ v: UInt32, first: Bool) -> Bool {
        switch v {
        case 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D, 0x37F...0x1FFF, 0x200C...0x200D, 0x2070...0x218F,
             0x2C00...0x2FEF, 0x3001...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFFD, 0x10000...0xEFFFF:
            true
        case 0xB7, 0x300...0x36F, 0x203F...0x2040: !first
        default: false
        }
    }
}

/// Comments, CDATA sections, the XML declaration, and the markup that is refused (DTD declarations).
extension XMLScanner {
    /// Skips the comment at the cursor (`<!--`). `--` may not appear inside.
    mutating func comment() throws(XMLReadError) {
        let start = at
        at += 4
        while true {
            guard let b = peek() else { throw error("a comment that is never closed", at: start) }
            if b == UInt8(ascii: "-") && peek(1) == UInt8(ascii: "-") {
                guard peek(2) == UInt8(ascii: ">") else { throw error("'--' inside a comment", at: at) }
                at += 3
                return
            }
            try refuseDeclarationInside()
            at += try scalar(at: at).length
        }
    }

    /// Appends the content of the CDATA section at the cursor (`<![CDATA[`) to `out`, line ends made LF.
    mutating func cdata(into out: inout [UInt8]) throws(XMLReadError) {
        let start = at
        at += 9
        while true {
            guard let b = peek() else { throw error("a CDATA section that is never closed", at: start) }
            if b == UInt8(ascii: "]") && skip("]]>") { return }
            try refuseDeclarationInside()
            if b == 0x0D {
                out.append(0x0A)
                at += peek(1) == 0x0A ? 2 : 1
            } else {
                try character(into: &out)
            }
        }
    }

    /// `<!` followed by a letter inside a comment or CDATA section. Such text is harmless there, but it is
    /// refused as a declaration all the same: a document that carries one is never one Skylift needs, and a
    /// parser that disagreed on where the section ends would read a DTD.
    private func refuseDeclarationInside() throws(XMLReadError) {
        if peek() == UInt8(ascii: "<") && peek(1) == UInt8(ascii: "!"), let c = peek(2), Self.isLetter(c) {
            throw declaration(after: at + 2)
        }
    }

    /// The refusal of the markup declaration whose keyword starts at `i` (`<!DOCTYPE`, `<!ENTITY`, …).
    func declaration(after i: Int) -> XMLReadError {
        let keyword = bytes[i...].prefix(10).prefix(while: Self.isLetter)
        return .declaration(keyword.isEmpty ? "…" : String(decoding: keyword, as: UTF8.self).uppercased())
    }

    private static func isLetter(_ b: UInt8) -> Bool { (65...90).contains(b) || (97...122).contains(b) }

    /// Whether the cursor is on an XML declaration (`<?xml` and white space), not some other instruction.
    var seesXMLDeclaration: Bool { sees("<?xml") && peek(5).map(Self.isSpace) == true }

    /// Reads the XML declaration at the cursor: version 1.x, then an encoding that must be UTF-8 or US-ASCII
    /// (the bytes are read as UTF-8 whatever else it says), then standalone.
    mutating func xmlDeclaration() throws(XMLReadError) {
        let start = at
        at += 5
        let malformed = error("a malformed XML declaration", at: start)
        skipSpace()
        guard let version = try pseudoAttribute("version"), version.count >= 3, version.hasPrefix("1."),
              version.utf8.dropFirst(2).allSatisfy({ (48...57).contains($0) }) else { throw malformed }
        var spaced = skipSpace()
        if spaced, let encoding = try pseudoAttribute("encoding") {
            let printable = encoding.utf8.count <= 40 && encoding.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
            guard ["utf-8", "us-ascii"].contains(encoding.lowercased()) else {
                throw .unsupportedEncoding(printable ? "it declares encoding \"\(encoding)\"" : "it declares an unknown encoding")
            }
            spaced = skipSpace()
        }
        if spaced, let standalone = try pseudoAttribute("standalone") {
            guard standalone == "yes" || standalone == "no" else { throw malformed }
            skipSpace()
        }
        guard skip("?>") else { throw malformed }
    }

    /// `name = "value"` inside the XML declaration, or nil when the cursor is not on `name`. Values are short
    /// and plain: at most 64 bytes, no markup characters.
    private mutating func pseudoAttribute(_ name: StaticString) throws(XMLReadError) -> String? {
        guard skip(name) else { return nil }
        skipSpace()
        try expect(UInt8(ascii: "="), "'=' in the XML declaration")
        skipSpace()
        guard let quote = peek(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw unexpected("a quoted value in the XML declaration")
        }
        let start = at + 1
        var end = start
        while end < bytes.count, bytes[end] != quote {
            guard end - start < 64, bytes[end] != UInt8(ascii: "<"), bytes[end] != UInt8(ascii: "?") else {
                throw error("a malformed XML declaration", at: end)
            }
            end += try scalar(at: end).length
        }
        guard end < bytes.count else { throw error("a malformed XML declaration", at: start) }
        at = end + 1
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}

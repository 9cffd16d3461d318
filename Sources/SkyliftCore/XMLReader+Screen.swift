/// The byte-level checks made before libxml2 sees a document. libxml2 decides the encoding from the first
/// bytes and the `<?xml … encoding=…?>` declaration; a document in UTF-16 or UTF-7 could spell `<!DOCTYPE` in
/// bytes a plain search does not see. So only UTF-8 (or its US-ASCII subset) passes, and in UTF-8 every markup
/// declaration starts with the bytes `<!` followed by a letter.
extension XMLReader {
    /// The bytes to hand to the parser (without a UTF-8 byte order mark), or why the document is refused.
    static func screen(_ bytes: [UInt8], limits: XMLLimits) throws(XMLReadError) -> ArraySlice<UInt8> {
        guard bytes.count <= limits.maxBytes else { throw .tooLarge(bytes: bytes.count, limit: limits.maxBytes) }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if body.starts(with: [0xFE, 0xFF]) || body.starts(with: [0xFF, 0xFE]) {
            throw .unsupportedEncoding("a UTF-16 or UTF-32 byte order mark")
        }
        if body.contains(0) { throw .unsupportedEncoding("a NUL byte (UTF-16 or UTF-32 text?)") }
        if String(validating: body, as: UTF8.self) == nil { throw .unsupportedEncoding("an invalid UTF-8 sequence") }
        try checkDeclaredEncoding(body)
        try refuseMarkupDeclarations(body)
        // XMLParser on Linux dereferences null on a processing instruction without data (found by fuzzing):
        // none but the leading XML declaration gets through.
        guard XMLPrecheck.accepts(Array(body)) else {
            throw .malformed(line: 0, column: 0, reason: "a processing instruction other than the XML declaration")
        }
        return body
    }

    /// Encodings libxml2 would switch to on request; only the ones whose bytes are the ones we screened pass.
    static let acceptedEncodings: Set<String> = ["utf-8", "us-ascii"]

    /// An XML declaration may name an encoding; anything but UTF-8 (or US-ASCII) is refused, and so is an
    /// XML declaration anywhere but at the very start.
    private static func checkDeclaredEncoding(_ body: ArraySlice<UInt8>) throws(XMLReadError) {
        let declarations = xmlDeclarations(in: body)
        guard let first = declarations.first else { return }
        guard first == body.startIndex, declarations.count == 1 else {
            throw .malformed(line: 0, column: 0, reason: "XML declaration not at the start of the document")
        }
        let closer = firstIndex(of: Array("?>".utf8), in: body, from: first) ?? body.endIndex
        let declaration = body[first..<closer]
        guard let keyword = firstIndex(of: Array("encoding".utf8), in: declaration, from: declaration.startIndex) else { return }
        var i = keyword + 8
        func skipSpace() { while i < closer, [0x20, 0x09, 0x0A, 0x0D].contains(body[i]) { i += 1 } }
        skipSpace()
        guard i < closer, body[i] == UInt8(ascii: "=") else { throw .unsupportedEncoding("a malformed encoding declaration") }
        i += 1
        skipSpace()
        guard i < closer, body[i] == UInt8(ascii: "\"") || body[i] == UInt8(ascii: "'") else {
            throw .unsupportedEncoding("a malformed encoding declaration")
        }
        let quote = body[i]
        let start = i + 1
        guard let end = body[start..<closer].firstIndex(of: quote) else {
            throw .unsupportedEncoding("a malformed encoding declaration")
        }
        let name = body[start..<end]
        let printable = name.count <= 40 && name.allSatisfy { $0 > 0x20 && $0 < 0x7F }
        let text = String(decoding: name, as: UTF8.self)
        guard acceptedEncodings.contains(text.lowercased()) else {
            throw .unsupportedEncoding(printable ? "it declares encoding \"\(text)\"" : "it declares an unknown encoding")
        }
    }

    /// `<!--` (a comment) and `<![CDATA[` are the only markup starting with `<!` outside a DTD. Anything else
    /// (`<!DOCTYPE`, `<!ENTITY`, …) is refused wherever it stands, even inside a comment or CDATA section:
    /// refusing a rare harmless document is cheaper than agreeing with libxml2 on where every section ends.
    private static func refuseMarkupDeclarations(_ body: ArraySlice<UInt8>) throws(XMLReadError) {
        let comment = Array("--".utf8), cdata = Array("[CDATA[".utf8)
        var i = body.startIndex
        while let lt = body[i...].firstIndex(of: UInt8(ascii: "<")) {
            i = lt + 1
            guard i < body.endIndex, body[i] == UInt8(ascii: "!") else { continue }
            let rest = body[(i + 1)...]
            if rest.starts(with: comment) || rest.starts(with: cdata) { continue }
            let keyword = rest.prefix(10).prefix { (65...90).contains($0) || (97...122).contains($0) }
            throw .declaration(keyword.isEmpty ? "…" : String(decoding: keyword, as: UTF8.self).uppercased())
        }
    }

    /// Where `<?xml` followed by a blank (an XML declaration, not a `<?xml-stylesheet` instruction) starts.
    private static func xmlDeclarations(in body: ArraySlice<UInt8>) -> [Int] {
        let name = Array("xml".utf8)
        var found: [Int] = []
        var i = body.startIndex
        while let lt = body[i...].firstIndex(of: UInt8(ascii: "<")) {
            i = lt + 1
            let rest = body[i...]
            guard rest.count > 4, rest.first == UInt8(ascii: "?") else { continue }
            let target = rest.dropFirst().prefix(3).map { (65...90).contains($0) ? $0 + 32 : $0 }
            if target == name, [0x20, 0x09, 0x0A, 0x0D].contains(rest[rest.startIndex + 4]) { found.append(lt) }
        }
        return found
    }

    private static func firstIndex(of needle: [UInt8], in haystack: ArraySlice<UInt8>, from start: Int) -> Int? {
        guard haystack.endIndex - start >= needle.count else { return nil }
        for i in start...(haystack.endIndex - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) {
            return i
        }
        return nil
    }
}

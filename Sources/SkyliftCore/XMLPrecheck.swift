/// What an XML body from outside must pass before Foundation's XMLParser sees it. On Linux, XMLParser with a
/// delegate traps on an element name that is not UTF-8 and dereferences a null pointer on a processing
/// instruction without data (`<?x?>`); both were found by the XML fuzz targets. No WebDAV or S3 document
/// needs a processing instruction, so every one but the leading XML declaration is refused.
public enum XMLPrecheck {
    public static func accepts(_ bytes: [UInt8]) -> Bool {
        guard String(validating: bytes, as: UTF8.self) != nil else { return false }
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        let declaration = Array("<?xml".utf8)
        if rest.starts(with: declaration), let next = rest.dropFirst(declaration.count).first,
           next == 0x20 || next == 0x09 || next == 0x0D || next == 0x0A {
            // The declaration ends at the first `?>` and holds no `<` (else it hides a `<?x?>`).
            guard let end = firstIndex(of: [0x3F, 0x3E], in: rest), !rest[..<end].dropFirst().contains(0x3C) else {
                return false
            }
            rest = rest[(end + 2)...]
        }
        return firstIndex(of: [0x3C, 0x3F], in: rest) == nil // <?
    }

    private static func firstIndex(of pair: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            if bytes[i] == pair[0] && bytes[i + 1] == pair[1] { return i }
            i += 1
        }
        return nil
    }
}

/// A cursor over a document for `XMLReader`: where it stands, what the bytes there are, and errors that say
/// where. Every byte the reader consumes passes through `scalar(at:)` or one of the ASCII checks here, so the
/// UTF-8 validation and the XML character rules cost no pass of their own.
struct XMLScanner {
    let bytes: [UInt8]
    var at: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        at = 0
    }

    var atEnd: Bool { at >= bytes.count }

    /// The byte `offset` past the cursor, or nil past the end.
    func peek(_ offset: Int = 0) -> UInt8? {
        let i = at + offset
        return i < bytes.count ? bytes[i] : nil
    }

    /// Whether the bytes at the cursor are `literal`.
    func sees(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard bytes.count - at >= n else { return false }
        return literal.withUTF8Buffer { lit in
            for k in 0..<n where bytes[at + k] != lit[k] { return false }
            return true
        }
    }

    /// Steps over `literal` when it is at the cursor.
    mutating func skip(_ literal: StaticString) -> Bool {
        guard sees(literal) else { return false }
        at += literal.utf8CodeUnitCount
        return true
    }

    /// Steps over XML white space (space, tab, CR, LF); true when there was some.
    @discardableResult
    mutating func skipSpace() -> Bool {
        let start = at
        while let b = peek(), Self.isSpace(b) { at += 1 }
        return at > start
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }

    /// Steps over `byte`, or throws naming what was expected here.
    mutating func expect(_ byte: UInt8, _ what: String) throws(XMLReadError) {
        guard peek() == byte else { throw unexpected(what) }
        at += 1
    }

    /// The scalar at `i` and its length in bytes, when it is valid UTF-8 and a character XML allows
    /// (tab, LF, CR, U+0020…U+D7FF, U+E000…U+FFFD, U+10000…U+10FFFF).
    func scalar(at i: Int) throws(XMLReadError) -> (value: UInt32, length: Int) {
        let b0 = bytes[i]
        if b0 < 0x80 {
            guard b0 >= 0x20 || b0 == 0x09 || b0 == 0x0A || b0 == 0x0D else { throw invalidCharacter(at: i) }
            return (UInt32(b0), 1)
        }
        let length: Int, first: UInt32, least: UInt32
        switch b0 {
        case 0xC2...0xDF: (length, first, least) = (2, UInt32(b0 & 0x1F), 0x80)
        case 0xE0...0xEF: (length, first, least) = (3, UInt32(b0 & 0x0F), 0x800)
        case 0xF0...0xF4: (length, first, least) = (4, UInt32(b0 & 0x07), 0x10000)
        default: throw .unsupportedEncoding("an invalid UTF-8 sequence")
        }
        guard bytes.count - i >= length else { throw .unsupportedEncoding("an invalid UTF-8 sequence") }
        var value = first
        for k in 1..<length {
            let b = bytes[i + k]
            guard b & 0xC0 == 0x80 else { throw .unsupportedEncoding("an invalid UTF-8 sequence") }
            value = value << 6 | UInt32(b & 0x3F)
        }
        guard value >= least, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else {
            throw .unsupportedEncoding("an invalid UTF-8 sequence")
        }
        guard value != 0xFFFE && value != 0xFFFF else { throw invalidCharacter(at: i) }
        return (value, length)
    }

    private func invalidCharacter(at i: Int) -> XMLReadError {
        if bytes[i] == 0 { return .unsupportedEncoding("a NUL byte (UTF-16 or UTF-32 text?)") }
        return error("a character XML does not allow", at: i)
    }

    /// The error for the byte at the cursor when the grammar wanted `what`: an encoding error when the byte is
    /// not a valid character at all (so UTF-16 or Latin-1 text is named as such), else where and what.
    func unexpected(_ what: String) -> XMLReadError {
        guard !atEnd else { return error("the document ends where \(what) should be", at: at) }
        do { _ = try scalar(at: at) } catch { return error }
        return error("\(what) expected", at: at)
    }

    /// A well-formedness error at byte offset `i`, with its line and column (counted in characters).
    func error(_ reason: String, at i: Int? = nil) -> XMLReadError {
        let end = min(i ?? at, bytes.count)
        var line = 1, lineStart = 0
        for k in 0..<end where bytes[k] == 0x0A {
            line += 1
            lineStart = k + 1
        }
        var column = 1
        for k in lineStart..<end where bytes[k] & 0xC0 != 0x80 { column += 1 }
        return .malformed(line: line, column: column, reason: reason)
    }
}

/// Why `XMLReader` refused a document. Descriptions say what was wrong without quoting the document.
public enum XMLReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The document is larger than `XMLLimits.maxBytes`.
    case tooLarge(bytes: Int, limit: Int)
    /// The document is not UTF-8 (a UTF-16/32 byte order, a NUL byte, an invalid sequence) or declares an
    /// encoding other than UTF-8 or US-ASCII.
    case unsupportedEncoding(String)
    /// A `<!DOCTYPE`, `<!ENTITY`, `<!ELEMENT`, `<!ATTLIST` or `<!NOTATION` markup declaration: DTDs are never
    /// processed, so a document carrying one is refused whole.
    case declaration(String)
    /// Elements nest deeper than `XMLLimits.maxDepth`.
    case tooDeep(limit: Int)
    /// More than `XMLLimits.maxElements` elements.
    case tooManyElements(limit: Int)
    /// A run of text or an attribute value longer than `XMLLimits.maxTextBytes`.
    case textTooLong(limit: Int)
    /// An element with more than `XMLLimits.maxAttributes` attributes.
    case tooManyAttributes(limit: Int)
    /// Not well-formed XML (or not namespace-well-formed), with where the parser stopped.
    case malformed(line: Int, column: Int, reason: String)

    public var description: String {
        switch self {
        case let .tooLarge(bytes, limit): "XML document of \(bytes) bytes is larger than the \(limit) accepted"
        case let .unsupportedEncoding(what): "XML document is not UTF-8: \(what)"
        case let .declaration(keyword):
            "XML document has a <!\(keyword) declaration; DTDs and entity declarations are not accepted"
        case let .tooDeep(limit): "XML elements nest deeper than \(limit) levels"
        case let .tooManyElements(limit): "XML document has more than \(limit) elements"
        case let .textTooLong(limit): "XML text longer than \(limit) bytes"
        case let .tooManyAttributes(limit): "XML element with more than \(limit) attributes"
        case let .malformed(line, column, reason):
            line > 0 ? "XML is not well-formed at line \(line), column \(column): \(reason)" : "XML is not well-formed: \(reason)"
        }
    }
}

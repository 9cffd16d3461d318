/// Bounds on an XML document from outside: its size, how deep elements nest, how many there are, how long one
/// run of text (or one attribute value) may be, and how many attributes one element may carry. Without a DTD
/// no entity can expand, so text never outgrows the bytes it came from; the bounds keep the parsed tree small
/// and the reader's stack of open elements short.
public struct XMLLimits: Sendable, Equatable {
    /// Largest document, in bytes.
    public var maxBytes: Int
    /// Deepest element nesting (the root element is depth 1).
    public var maxDepth: Int
    /// Most elements in the document.
    public var maxElements: Int
    /// Longest run of character data between two tags, in UTF-8 bytes.
    public var maxTextBytes: Int
    /// Most attributes on one element, namespace declarations included.
    public var maxAttributes: Int

    public init(maxBytes: Int, maxDepth: Int, maxElements: Int, maxTextBytes: Int, maxAttributes: Int = 256) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxElements = maxElements
        self.maxTextBytes = maxTextBytes
        self.maxAttributes = maxAttributes
    }

    /// WebDAV request bodies (PROPFIND, PROPPATCH, LOCK) and the dead properties stored from them.
    public static let davRequest = XMLLimits(maxBytes: 1 << 20, maxDepth: 32, maxElements: 10_000, maxTextBytes: 1 << 20)

    /// Answers from servers the clients talk to (S3 documents, PROPFIND multistatus): larger, as a listing of a
    /// big folder is, but still bounded.
    public static let serverResponse = XMLLimits(maxBytes: 16 << 20, maxDepth: 64, maxElements: 2_000_000,
                                                 maxTextBytes: 1 << 20)
}

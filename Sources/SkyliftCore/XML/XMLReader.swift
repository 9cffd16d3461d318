/// Receives a document's content from `XMLReader`, in order. Calls come synchronously on the reading thread.
public protocol XMLEventHandler: AnyObject {
    /// An element starts. `namespaces` maps every prefix in scope ("" for the default namespace) to its URI.
    func startElement(_ name: XMLName, attributes: [XMLAttribute], namespaces: [String: String])
    /// Character data (text, CDATA, whitespace) inside the current element; may come in several pieces.
    func characters(_ text: String)
    func endElement(_ name: XMLName)
}

/// The one way Skylift parses XML from outside (WebDAV bodies, stored dead properties, S3 and PROPFIND answers).
///
/// A small non-validating parser of its own, in one pass over the bytes: UTF-8 only (an XML declaration may
/// say UTF-8 or US-ASCII, nothing else), elements, attributes, namespaces, text, CDATA and comments, the five
/// predefined entities and character references. No DTD is ever processed: a markup declaration
/// (`<!DOCTYPE`, `<!ENTITY`, …) refuses the document, so no entity is declared, substituted or loaded from a
/// file or the network. Processing instructions other than the leading XML declaration are refused too (no
/// document Skylift reads has one). Size, depth, element count, attributes per element and text length are
/// bounded by `XMLLimits`; nothing recurses, and nothing outlives the call but what the handler keeps.
public enum XMLReader {
    /// Streams `bytes` into `handler`; throws why the document was refused (the handler may have seen part of it).
    public static func read(_ bytes: [UInt8], limits: XMLLimits, into handler: some XMLEventHandler) throws(XMLReadError) {
        guard bytes.count <= limits.maxBytes else { throw .tooLarge(bytes: bytes.count, limit: limits.maxBytes) }
        var pass = Pass(bytes, limits: limits, handler: handler)
        try pass.run()
    }

    /// The whole document as a tree.
    public static func tree(_ bytes: [UInt8], limits: XMLLimits) throws(XMLReadError) -> XMLTree {
        let builder = XMLTree.Builder()
        try read(bytes, limits: limits, into: builder)
        guard let root = builder.root else { throw .malformed(line: 0, column: 0, reason: "no root element") }
        return root
    }
}

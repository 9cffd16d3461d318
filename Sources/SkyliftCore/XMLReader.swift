import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

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
/// No DTD is ever processed: a document with a markup declaration (`<!DOCTYPE`, `<!ENTITY`, …) is refused
/// before parsing, so no entity is declared, substituted or loaded from a file or the network. Only UTF-8 is
/// accepted, because an encoding switch could hide a declaration from that check. Size, depth, element count
/// and text length are bounded by `XMLLimits`. Namespaces are resolved.
public enum XMLReader {
    /// Streams `bytes` into `handler`; throws why the document was refused (the handler may have seen part of it).
    public static func read(_ bytes: [UInt8], limits: XMLLimits, into handler: some XMLEventHandler) throws(XMLReadError) {
        try parse(screen(bytes, limits: limits), limits: limits, into: handler)
    }

    /// The parse behind the byte screen; internal so tests can show the parser alone loads nothing either.
    static func parse(_ body: ArraySlice<UInt8>, limits: XMLLimits, into handler: some XMLEventHandler) throws(XMLReadError) {
        let events = Events(limits: limits, handler: handler)
        let parser = XMLParser(data: Data(body))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        // Both default to off; set anyway, so a change of default never turns loading on.
        parser.shouldResolveExternalEntities = false
        parser.externalEntityResolvingPolicy = .never
        parser.delegate = events
        let finished = parser.parse()
        if let refusal = events.refusal { throw refusal }
        // With libxml2's recovery on, parse() can succeed on a broken document: the recorded error counts too.
        guard finished, parser.parserError == nil, events.rootClosed else {
            throw .malformed(line: parser.lineNumber, column: parser.columnNumber,
                             reason: reason(parser.parserError, rootClosed: events.rootClosed))
        }
    }

    /// The whole document as a tree.
    public static func tree(_ bytes: [UInt8], limits: XMLLimits) throws(XMLReadError) -> XMLTree {
        let builder = XMLTree.Builder()
        try read(bytes, limits: limits, into: builder)
        guard let root = builder.root else { throw .malformed(line: 0, column: 0, reason: "no root element") }
        return root
    }

    /// libxml2's message, cut to one short printable line (it may quote names from the document).
    private static func reason(_ error: Error?, rootClosed: Bool) -> String {
        guard let error else { return rootClosed ? "parser stopped" : "document ends before its root element does" }
        let ns = error as NSError
        let message = (ns.userInfo[NSLocalizedDescriptionKey] as? String) ?? (ns.userInfo["NSDebugDescription"] as? String)
        let printable = (message ?? "").unicodeScalars.map { (0x20..<0x7F).contains($0.value) ? Character($0) : " " }
        let line = String(printable).trimmingCharacters(in: .whitespaces)
        return line.isEmpty ? (libxml2Reasons[ns.code] ?? "libxml2 error \(ns.code)") : String(line.prefix(160))
    }

    /// What libxml2's commonest error numbers (`xmlParserErrors`) mean; on Linux its errors carry no message.
    static let libxml2Reasons: [Int: String] = [
        4: "no root element", 5: "content after the root element or missing end tags",
        6: "invalid character reference", 7: "invalid character reference", 8: "invalid character reference",
        9: "invalid character", 26: "undeclared entity", 38: "'<' in an attribute value",
        41: "attribute without a value", 42: "attribute given twice", 73: "'>' expected", 76: "end tag does not match",
        77: "element not closed", 201: "undeclared namespace prefix", 203: "attribute given twice", 204: "empty namespace name",
    ]
}

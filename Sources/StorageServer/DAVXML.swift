import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import HTTPServer
import SkyliftCore

/// A property name: namespace URI plus local name (RFC 4918 §4.3).
struct PropertyName: Hashable, Codable, Sendable {
    var namespace: String
    var name: String

    static func dav(_ name: String) -> PropertyName { PropertyName(namespace: "DAV:", name: name) }
}

/// Parsing request bodies and building multistatus answers with FoundationXML.
enum DAVXML {
    /// Parses a request body; nil when it is not well-formed XML (the caller answers 400).
    static func parse(_ bytes: [UInt8]) -> XMLElement? {
        // XMLDocument recovers from some malformed input; the SAX parser records every well-formedness error
        // (on Linux its parse() can still return true, so the error is what counts).
        // A body without an element (empty, only blanks) passes the SAX check on Linux, and XMLDocument then
        // dereferences the null document libxml2 returns: the root element must have been seen (found by fuzzing).
        guard XMLPrecheck.accepts(bytes) else { return nil }
        let data = Data(bytes)
        let strict = XMLParser(data: data)
        let seen = RootSeen()
        strict.delegate = seen
        guard strict.parse(), strict.parserError == nil, seen.root,
              let doc = try? XMLDocument(data: data, options: []), let root = doc.rootElement(),
              declarationsAreValid(root) else { return nil }
        return root
    }

    private final class RootSeen: NSObject, XMLParserDelegate {
        var root = false
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) { root = true }
    }

    /// Namespaces in XML 1.0 forbids undeclared prefixes and binding one to the empty name (`xmlns:p=""`);
    /// libxml2 only warns, leaving a prefixed element without a namespace.
    private static func declarationsAreValid(_ element: XMLElement) -> Bool {
        if (element.name ?? "").contains(":") && element.uri == nil { return false }
        return children(element).allSatisfy(declarationsAreValid)
    }

    static func name(of element: XMLElement) -> PropertyName {
        PropertyName(namespace: element.uri ?? "", name: element.localName ?? element.name ?? "")
    }

    static func isDAV(_ element: XMLElement, _ local: String) -> Bool {
        element.uri == "DAV:" && element.localName == local
    }

    /// Child elements only (no text or comments).
    static func children(_ element: XMLElement) -> [XMLElement] {
        (element.children ?? []).compactMap { $0 as? XMLElement }
    }

    static func child(_ element: XMLElement, _ local: String) -> XMLElement? {
        children(element).first { isDAV($0, local) }
    }

    /// The element as stand-alone XML: every namespace in scope is declared on it, so it can be stored and
    /// later parsed or embedded anywhere.
    static func standalone(_ element: XMLElement) -> String {
        var declared: [String: String] = [:]
        var node: XMLNode? = element
        while let e = node as? XMLElement {
            for ns in e.namespaces ?? [] {
                let prefix = ns.name ?? ""
                if declared[prefix] == nil { declared[prefix] = ns.stringValue ?? "" }
            }
            node = e.parent
        }
        let qualified = element.name ?? "x"
        let prefix = qualified.contains(":") ? String(qualified.prefix { $0 != ":" }) : ""
        if declared[prefix] == nil { declared[prefix] = element.uri ?? "" }
        var out = "<" + qualified
        for (p, uri) in declared.sorted(by: { $0.key < $1.key }) {
            out += (p.isEmpty ? " xmlns=\"" : " xmlns:\(p)=\"") + escape(uri) + "\""
        }
        for attr in element.attributes ?? [] { out += " " + attr.xmlString }
        out += ">"
        for c in element.children ?? [] { out += c.xmlString }
        return out + "</" + qualified + ">"
    }

    /// An empty element for a property name, e.g. in a 404 propstat.
    static func empty(_ p: PropertyName) -> XMLElement {
        if p.namespace == "DAV:" { return XMLElement(name: "D:" + p.name) }
        let xml = p.namespace.isEmpty ? "<\(p.name) xmlns=\"\"/>" : "<P:\(p.name) xmlns:P=\"\(escape(p.namespace))\"/>"
        return (try? XMLElement(xmlString: xml)) ?? XMLElement(name: p.name)
    }

    /// A stored stand-alone element, ready to insert.
    static func element(_ xml: String) -> XMLElement? { try? XMLElement(xmlString: xml) }

    static func dav(_ name: String, _ children: [XMLElement] = [], text: String? = nil) -> XMLElement {
        let e = XMLElement(name: "D:" + name)
        if let text { e.stringValue = text }
        for c in children { e.addChild(c) }
        return e
    }

    /// A complete document with the `DAV:` namespace bound to `D` on the root.
    static func document(_ root: XMLElement) -> [UInt8] {
        if let ns = XMLNode.namespace(withName: "D", stringValue: "DAV:") as? XMLNode { root.addNamespace(ns) }
        let doc = XMLDocument(rootElement: root)
        doc.version = "1.0"
        doc.characterEncoding = "utf-8"
        return Array(doc.xmlData(options: []))
    }

    static func response(_ status: Int, _ root: XMLElement, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var h = headers
        h.set("Content-Type", "application/xml; charset=utf-8")
        return HTTPResponse(status: status, headers: h, body: .bytes(document(root)))
    }

    /// `<D:error><D:condition/></D:error>` with an optional href inside the condition.
    static func error(_ status: Int, condition: String, href: String? = nil) -> HTTPResponse {
        let c = dav(condition, href.map { [dav("href", text: $0)] } ?? [])
        return response(status, dav("error", [c]))
    }

    static func statusLine(_ code: Int) -> String { "HTTP/1.1 \(code) \(reason(code))" }

    static func reason(_ code: Int) -> String {
        switch code {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 423: "Locked"
        case 424: "Failed Dependency"
        case 507: "Insufficient Storage"
        default: "Status"
        }
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}

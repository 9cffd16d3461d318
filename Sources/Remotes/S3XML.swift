import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import SkyliftCore

/// A parsed XML element: just enough of a tree to read S3's response documents.
struct S3XMLElement: Sendable {
    var name: String
    var text: String = ""
    var children: [S3XMLElement] = []

    /// The first child named `name`.
    func child(_ name: String) -> S3XMLElement? { children.first { $0.name == name } }
    /// Every child named `name`.
    func all(_ name: String) -> [S3XMLElement] { children.filter { $0.name == name } }
    /// The text of the first child named `name`.
    subscript(_ name: String) -> String? { child(name)?.text }
    /// The first child named `name` as a non-negative integer; nil when absent, signed or beyond Int64.
    func integer(_ name: String) -> Int64? { self[name].flatMap { Int64(digits: $0.trimmingSpaces()) } }

    /// Parses `bytes`; nil when they are not well-formed XML or fail ``XMLPrecheck``.
    static func parse(_ bytes: [UInt8]) -> S3XMLElement? {
        guard XMLPrecheck.accepts(bytes) else { return nil }
        let builder = Builder()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else { return nil }
        return root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [S3XMLElement] = []
        var root: S3XMLElement?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            stack.append(S3XMLElement(name: name))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if !stack.isEmpty { stack[stack.count - 1].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard let element = stack.popLast() else { return }
            if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
        }
    }

    /// Escapes text for an XML element body.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

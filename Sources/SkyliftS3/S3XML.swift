import Foundation
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

    /// Parses `bytes` with `XMLReader` (no DTD, bounded); names are local names, namespaces dropped.
    static func parse(_ bytes: [UInt8]) throws(XMLReadError) -> S3XMLElement {
        let builder = Builder()
        try XMLReader.read(bytes, limits: .serverResponse, into: builder)
        guard let root = builder.root else { throw .malformed(line: 0, column: 0, reason: "no root element") }
        return root
    }

    /// Collects the reader's events into elements; lives only inside `parse`.
    private final class Builder: XMLEventHandler {
        var stack: [S3XMLElement] = []
        var root: S3XMLElement?

        func startElement(_ name: XMLName, attributes: [XMLAttribute], namespaces: [String: String]) {
            stack.append(S3XMLElement(name: name.local))
        }

        func characters(_ text: String) {
            if !stack.isEmpty { stack[stack.count - 1].text += text }
        }

        func endElement(_ name: XMLName) {
            guard let element = stack.popLast() else { return }
            if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
        }
    }

    /// Escapes text for an XML element body.
    static func escape(_ text: String) -> String { XMLTree.escape(text, attribute: true) }
}

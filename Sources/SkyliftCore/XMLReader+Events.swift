import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

extension XMLReader {
    /// XMLParser's delegate: enforces the limits, tracks namespace scopes, refuses anything of a DTD that
    /// slipped past the byte screen, and forwards the rest. XMLParser calls it synchronously on the thread
    /// that called `parse()`; it never leaves `read`.
    final class Events<Handler: XMLEventHandler>: NSObject, XMLParserDelegate {
        let limits: XMLLimits
        let handler: Handler
        private(set) var refusal: XMLReadError?
        private(set) var rootClosed = false
        private var depth = 0
        private var elements = 0
        private var textBytes = 0
        private var scopes: [[String: String]] = []
        private var declared: [String: String] = [:]
        private var names: [XMLName] = []

        init(limits: XMLLimits, handler: Handler) {
            self.limits = limits
            self.handler = handler
        }

        private func refuse(_ parser: XMLParser, _ reason: XMLReadError) {
            if refusal == nil { refusal = reason }
            parser.abortParsing()
        }

        func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
            declared[prefix] = namespaceURI
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            guard refusal == nil else { return }
            depth += 1
            elements += 1
            textBytes = 0
            if depth > limits.maxDepth { return refuse(parser, .tooDeep(limit: limits.maxDepth)) }
            if elements > limits.maxElements { return refuse(parser, .tooManyElements(limit: limits.maxElements)) }
            var scope = scopes.last ?? [:]
            scope.merge(declared) { $1 }
            declared = [:]
            scopes.append(scope)
            let name = XMLName(namespace: namespaceURI ?? "", local: elementName, prefix: Self.prefix(of: qName ?? ""))
            // libxml2 only warns about an undeclared prefix and leaves the element without a namespace.
            if !name.prefix.isEmpty && name.namespace.isEmpty {
                return refuse(parser, .malformed(line: parser.lineNumber, column: parser.columnNumber,
                                                 reason: "element prefix \(name.prefix) is not declared"))
            }
            var attributes: [XMLAttribute] = []
            for (qualified, value) in attributeDict.sorted(by: { $0.key < $1.key }) {
                let prefix = Self.prefix(of: qualified)
                let local = prefix.isEmpty ? qualified : String(qualified.dropFirst(prefix.count + 1))
                let uri = prefix.isEmpty ? "" : prefix == "xml" ? XMLName.xmlNamespace : scope[prefix]
                guard let uri, !uri.isEmpty || prefix.isEmpty else {
                    return refuse(parser, .malformed(line: parser.lineNumber, column: parser.columnNumber,
                                                     reason: "attribute prefix \(prefix) is not declared"))
                }
                attributes.append(XMLAttribute(name: XMLName(namespace: uri, local: local, prefix: prefix), value: value))
            }
            names.append(name)
            handler.startElement(name, attributes: attributes, namespaces: scope)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            guard refusal == nil, let name = names.popLast() else { return }
            depth -= 1
            textBytes = 0
            scopes.removeLast()
            if depth == 0 { rootClosed = true }
            handler.endElement(name)
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text(parser, string) }

        func parser(_ parser: XMLParser, foundIgnorableWhitespace whitespaceString: String) { text(parser, whitespaceString) }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) { text(parser, String(decoding: CDATABlock, as: UTF8.self)) }

        private func text(_ parser: XMLParser, _ string: String) {
            guard refusal == nil, depth > 0 else { return }
            textBytes += string.utf8.count
            if textBytes > limits.maxTextBytes { return refuse(parser, .textTooLong(limit: limits.maxTextBytes)) }
            handler.characters(string)
        }

        // Any sign of a DTD refuses the document; the byte screen should have stopped it already.
        func parser(_ parser: XMLParser, foundElementDeclarationWithName elementName: String, model: String) {
            refuse(parser, .declaration("ELEMENT"))
        }

        func parser(_ parser: XMLParser, foundAttributeDeclarationWithName attributeName: String, forElement elementName: String,
                    type: String?, defaultValue: String?) {
            refuse(parser, .declaration("ATTLIST"))
        }

        func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
            refuse(parser, .declaration("ENTITY"))
        }

        func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
            refuse(parser, .declaration("ENTITY"))
        }

        func parser(_ parser: XMLParser, foundUnparsedEntityDeclarationWithName name: String, publicID: String?,
                    systemID: String?, notationName: String?) {
            refuse(parser, .declaration("ENTITY"))
        }

        func parser(_ parser: XMLParser, foundNotationDeclarationWithName name: String, publicID: String?, systemID: String?) {
            refuse(parser, .declaration("NOTATION"))
        }

        /// Asked for any entity that is neither predefined nor declared (and none can be declared here).
        func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
            refuse(parser, .malformed(line: parser.lineNumber, column: parser.columnNumber, reason: "undeclared entity"))
            return nil
        }

        private static func prefix(of qualified: String) -> String {
            guard let colon = qualified.firstIndex(of: ":") else { return "" }
            return String(qualified[..<colon])
        }
    }
}

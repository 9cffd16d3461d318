extension XMLReader {
    /// One pass over a document: checks encoding, characters, well-formedness, namespaces and the limits as it
    /// goes, and hands the content to the handler. No recursion (the open elements are a stack bounded by
    /// `maxDepth`); text is buffered only up to the next tag and never beyond `maxTextBytes`.
    struct Pass<Handler: XMLEventHandler> {
        private var scanner: XMLScanner
        private var namespaces = XMLNamespaces()
        private let limits: XMLLimits
        private let handler: Handler
        private var open: [(qualified: String, name: XMLName)] = []
        private var elements = 0
        private var text: [UInt8] = []

        init(_ bytes: [UInt8], limits: XMLLimits, handler: Handler) {
            scanner = XMLScanner(bytes)
            self.limits = limits
            self.handler = handler
        }

        mutating func run() throws(XMLReadError) {
            try prolog()
            var sawRoot = false
            while !scanner.atEnd {
                if scanner.peek() == UInt8(ascii: "<") {
                    if scanner.peek(1) != UInt8(ascii: "/") && scanner.peek(1) != UInt8(ascii: "!") && scanner.peek(1) != UInt8(ascii: "?")
                        && open.isEmpty {
                        guard !sawRoot else { throw scanner.error("content after the root element") }
                        sawRoot = true
                    }
                    try markup()
                } else if open.isEmpty {
                    guard scanner.skipSpace() else { throw scanner.unexpected("'<'") }
                } else {
                    try scanner.text(into: &text)
                    guard text.count <= limits.maxTextBytes else { throw .textTooLong(limit: limits.maxTextBytes) }
                }
            }
            guard sawRoot else { throw scanner.error("no root element") }
            guard open.isEmpty else { throw scanner.error("the document ends before its root element does") }
        }

        /// A byte order mark (only UTF-8's), then the XML declaration if there is one.
        private mutating func prolog() throws(XMLReadError) {
            if scanner.sees("\u{FEFF}") { scanner.at += 3 }
            if scanner.peek() == 0xFE && scanner.peek(1) == 0xFF || scanner.peek() == 0xFF && scanner.peek(1) == 0xFE {
                throw .unsupportedEncoding("a UTF-16 or UTF-32 byte order mark")
            }
            if scanner.seesXMLDeclaration { try scanner.xmlDeclaration() }
        }

        /// What starts with `<` at the cursor.
        private mutating func markup() throws(XMLReadError) {
            switch scanner.peek(1) {
            case UInt8(ascii: "/"): try endElement()
            case UInt8(ascii: "?"):
                // No WebDAV or S3 document needs a processing instruction; refusing them keeps the grammar small.
                throw scanner.error(scanner.seesXMLDeclaration ? "an XML declaration not at the start of the document"
                                                               : "a processing instruction (none is accepted)")
            case UInt8(ascii: "!"):
                if scanner.sees("<!--") {
                    try scanner.comment()
                } else if scanner.sees("<![CDATA[") {
                    guard !open.isEmpty else { throw scanner.error("a CDATA section outside the root element") }
                    try scanner.cdata(into: &text)
                    guard text.count <= limits.maxTextBytes else { throw .textTooLong(limit: limits.maxTextBytes) }
                } else {
                    throw scanner.declaration(after: scanner.at + 2)
                }
            default: try startElement()
            }
        }

        private mutating func startElement() throws(XMLReadError) {
            let tag = try scanner.startTag(maxAttributes: limits.maxAttributes, maxValueBytes: limits.maxTextBytes)
            guard open.count < limits.maxDepth else { throw .tooDeep(limit: limits.maxDepth) }
            elements += 1
            guard elements <= limits.maxElements else { throw .tooManyElements(limit: limits.maxElements) }
            flushText()
            let attributes: [XMLAttribute]
            let name: XMLName
            do {
                let plain = try namespaces.enter(tag.attributes).get()
                name = try namespaces.resolve(tag.qualified, isAttribute: false).get()
                attributes = try plain.sorted { $0.qualified < $1.qualified }.map { attribute throws(XMLNamespaces.Refusal) in
                    XMLAttribute(name: try namespaces.resolve(attribute.qualified, isAttribute: true).get(), value: attribute.value)
                }
            } catch {
                throw scanner.error(error.reason, at: tag.offset)
            }
            if attributes.count > 1, Set(attributes.map { [$0.name.namespace, $0.name.local] }).count < attributes.count {
                throw scanner.error("two attributes with the same namespace and local name", at: tag.offset)
            }
            handler.startElement(name, attributes: attributes, namespaces: namespaces.current)
            if tag.isEmpty {
                namespaces.leave()
                handler.endElement(name)
            } else {
                open.append((tag.qualified, name))
            }
        }

        private mutating func endElement() throws(XMLReadError) {
            let offset = scanner.at
            let qualified = try scanner.endTag()
            guard let last = open.last else { throw scanner.error("an end tag outside the root element", at: offset) }
            guard last.qualified == qualified else { throw scanner.error("an end tag that does not match its start tag", at: offset) }
            flushText()
            open.removeLast()
            namespaces.leave()
            handler.endElement(last.name)
        }

        /// Hands the text since the last tag to the handler; the run of text starts again.
        private mutating func flushText() {
            guard !text.isEmpty else { return }
            handler.characters(String(decoding: text, as: UTF8.self))
            text.removeAll(keepingCapacity: true)
        }
    }
}

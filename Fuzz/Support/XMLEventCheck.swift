import SkyliftCore

/// A handler that checks what `XMLReader` reports: elements open and close in order, text comes only inside an
/// element, and a document it accepts ends with every element closed.
final class XMLEventCheck: XMLEventHandler {
    private var open: [XMLName] = []
    private(set) var elements = 0

    func startElement(_ name: XMLName, attributes: [XMLAttribute], namespaces: [String: String]) {
        require(!name.local.isEmpty && !name.local.contains(":"), "element local name \(name.local)")
        require(name.prefix.isEmpty || namespaces[name.prefix] == name.namespace || name.prefix == "xml", "prefix not in scope")
        open.append(name)
        elements += 1
    }

    func characters(_ text: String) {
        require(!open.isEmpty && !text.isEmpty, "text outside an element or empty")
    }

    func endElement(_ name: XMLName) {
        require(open.popLast() == name, "end of \(name.qualified) does not match the open element")
    }

    /// Reads `bytes` and checks the events and the outcome: accepted means balanced, refused means an error
    /// that reads as one printable line (it reaches logs and HTTP answers).
    static func read(_ bytes: [UInt8], limits: XMLLimits) {
        let check = XMLEventCheck()
        do {
            try XMLReader.read(bytes, limits: limits, into: check)
            require(check.open.isEmpty && check.elements > 0, "accepted with \(check.open.count) elements open")
        } catch {
            let text = error.description
            require(text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }, "error text not printable: \(text)")
        }
    }
}

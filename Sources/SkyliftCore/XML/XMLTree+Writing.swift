/// Writing a tree back as XML text: escaped, namespace-correct and self-contained.
extension XMLTree {
    /// The element as stand-alone XML: every namespace it was read with, and every one its names need, is
    /// declared on it, so the text can be stored and later read or embedded anywhere.
    public var xmlString: String {
        var out = ""
        write(to: &out, scope: [:])
        return out
    }

    /// A whole document: the XML declaration and the element.
    public var document: [UInt8] { Array(("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n" + xmlString).utf8) }

    /// `scope` is what the enclosing output already declares.
    private func write(to out: inout String, scope: [String: String]) {
        var inScope = scope
        var declarations: [(String, String)] = []
        func need(_ prefix: String, _ uri: String) {
            guard prefix != "xml", inScope[prefix, default: ""] != uri else { return }
            inScope[prefix] = uri
            declarations.append((prefix, uri))
        }
        for (prefix, uri) in namespaces.sorted(by: { $0.key < $1.key }) { need(prefix, uri) }
        need(name.prefix, name.namespace)
        for attribute in attributes where !attribute.name.prefix.isEmpty { need(attribute.name.prefix, attribute.name.namespace) }
        out += "<" + name.qualified
        for (prefix, uri) in declarations {
            out += (prefix.isEmpty ? " xmlns=\"" : " xmlns:\(prefix)=\"") + Self.escape(uri, attribute: true) + "\""
        }
        for attribute in attributes {
            out += " " + attribute.name.qualified + "=\"" + Self.escape(attribute.value, attribute: true) + "\""
        }
        guard !children.isEmpty else { out += "/>"; return }
        out += ">"
        for child in children {
            switch child {
            case let .element(e): e.write(to: &out, scope: inScope)
            case let .text(t): out += Self.escape(t, attribute: false)
            }
        }
        out += "</" + name.qualified + ">"
    }

    /// Escapes markup characters; in attributes also the quote and the white space that attribute-value
    /// normalisation would otherwise turn into spaces.
    public static func escape(_ text: String, attribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            case "\"" where attribute: out += "&quot;"
            case "\n" where attribute: out += "&#10;"
            case "\t" where attribute: out += "&#9;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

/// The namespace scopes of the elements open in a document (Namespaces in XML 1.0): `xmlns` and `xmlns:p`
/// attributes declare, an element's declarations hold for it and everything inside, and names are resolved
/// against the innermost declaration of their prefix.
struct XMLNamespaces {
    /// The namespace the `xmlns` prefix stands for; no prefix may be bound to it.
    static let xmlnsNamespace = "http://www.w3.org/2000/xmlns/"

    /// One map per open element; an element that declares nothing shares its parent's (copy on write).
    private var scopes: [[String: String]] = [[:]]

    /// Every prefix in scope ("" for the default namespace) and its URI; `xml` is implied and not listed.
    var current: [String: String] { scopes[scopes.count - 1] }

    /// Opens an element's scope: its namespace declarations are taken out of `attributes` and applied.
    /// Returns the remaining attributes, or the reason the declarations are not namespace-well-formed.
    mutating func enter(_ attributes: [(qualified: String, value: String)]) -> Result<[(qualified: String, value: String)], Refusal> {
        var scope = current
        var rest: [(qualified: String, value: String)] = []
        for (qualified, uri) in attributes {
            let prefix: String
            if qualified == "xmlns" {
                prefix = ""
            } else if qualified.hasPrefix("xmlns:") {
                prefix = String(qualified.dropFirst(6))
            } else {
                rest.append((qualified, uri))
                continue
            }
            if let refusal = Self.check(prefix: prefix, uri: uri) { return .failure(refusal) }
            // `xmlns=""` undeclares the default namespace: it is then as if none had been declared.
            if prefix != "xml" { scope[prefix] = uri.isEmpty ? nil : uri }
        }
        scopes.append(scope)
        return .success(rest)
    }

    /// Closes the innermost element's scope.
    mutating func leave() {
        if scopes.count > 1 { scopes.removeLast() }
    }

    /// The reserved prefixes and namespaces may not be rebound, and a prefix may not be bound to nothing.
    private static func check(prefix: String, uri: String) -> Refusal? {
        if prefix == "xmlns" || uri == xmlnsNamespace { return Refusal("a declaration of the reserved xmlns prefix or namespace") }
        if (prefix == "xml") != (uri == XMLName.xmlNamespace) { return Refusal("the xml prefix bound to another namespace or the reverse") }
        if !prefix.isEmpty && uri.isEmpty { return Refusal("a prefix declared with an empty namespace name") }
        return nil
    }

    /// The resolved name of an element (an unprefixed one takes the default namespace) or attribute (an
    /// unprefixed one has no namespace), or why it cannot be resolved.
    func resolve(_ qualified: String, isAttribute: Bool) -> Result<XMLName, Refusal> {
        guard let colon = qualified.firstIndex(of: ":") else {
            return .success(XMLName(namespace: isAttribute ? "" : current["", default: ""], local: qualified))
        }
        let prefix = String(qualified[..<colon]), local = String(qualified[qualified.index(after: colon)...])
        if prefix == "xml" { return .success(XMLName(namespace: XMLName.xmlNamespace, local: local, prefix: prefix)) }
        guard prefix != "xmlns", let uri = current[prefix] else {
            return .failure(Refusal(isAttribute ? "an attribute prefix that is not declared" : "an element prefix that is not declared"))
        }
        return .success(XMLName(namespace: uri, local: local, prefix: prefix))
    }

    /// Why a name or declaration is not namespace-well-formed.
    struct Refusal: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

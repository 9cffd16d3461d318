/// An element or attribute name with its namespace resolved (Namespaces in XML 1.0), and the prefix it was
/// written with so it can be written back the same way.
public struct XMLName: Hashable, Sendable {
    /// The namespace URI; empty for none.
    public var namespace: String
    public var local: String
    /// The prefix used in the document; empty for the default namespace or none.
    public var prefix: String

    public init(namespace: String, local: String, prefix: String = "") {
        self.namespace = namespace
        self.local = local
        self.prefix = prefix
    }

    /// `prefix:local`, or `local` without a prefix.
    public var qualified: String { prefix.isEmpty ? local : prefix + ":" + local }

    /// The namespace bound to the `xml` prefix by definition (`xml:lang`, `xml:space`).
    public static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
}

/// One attribute of an element (namespace declarations are not attributes here).
public struct XMLAttribute: Hashable, Sendable {
    public var name: XMLName
    public var value: String

    public init(name: XMLName, value: String) {
        self.name = name
        self.value = value
    }
}

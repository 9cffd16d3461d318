/// An element with its attributes and content, as `XMLReader.tree` reads it or as code builds it for output.
public struct XMLTree: Hashable, Sendable {
    /// One piece of an element's content.
    public enum Node: Hashable, Sendable {
        case element(XMLTree)
        case text(String)
    }

    public var name: XMLName
    public var attributes: [XMLAttribute]
    /// Every namespace in scope where the element was read (prefix, "" for the default, to URI); empty for built
    /// elements. Writing the element declares them all, so namespaced values such as QNames keep their meaning.
    public var namespaces: [String: String]
    public var children: [Node]

    public init(_ name: XMLName, attributes: [XMLAttribute] = [], namespaces: [String: String] = [:], children: [Node] = []) {
        self.name = name
        self.attributes = attributes
        self.namespaces = namespaces
        self.children = children
    }

    /// An element holding `elements`, or only `text` when given.
    public init(_ name: XMLName, _ elements: [XMLTree], text: String? = nil) {
        self.init(name, children: elements.map(Node.element) + (text.map { [.text($0)] } ?? []))
    }

    /// The child elements, in order (text left out).
    public var elements: [XMLTree] {
        children.compactMap { if case let .element(e) = $0 { e } else { nil } }
    }

    /// The element's own text (its text children joined; text inside child elements left out).
    public var text: String {
        children.reduce(into: "") { if case let .text(t) = $1 { $0 += t } }
    }

    /// The first child element with this namespace and local name.
    public func first(_ namespace: String, _ local: String) -> XMLTree? {
        elements.first { $0.name.namespace == namespace && $0.name.local == local }
    }

    /// Collects `XMLReader` events into a tree; used only inside `XMLReader.tree`.
    final class Builder: XMLEventHandler {
        private var stack: [XMLTree] = []
        private(set) var root: XMLTree?

        func startElement(_ name: XMLName, attributes: [XMLAttribute], namespaces: [String: String]) {
            stack.append(XMLTree(name, attributes: attributes, namespaces: namespaces))
        }

        func characters(_ text: String) {
            guard var current = stack.popLast() else { return }
            // Appending to the last text node in place keeps many small pieces linear, not quadratic.
            if case var .text(joined)? = current.children.last {
                current.children.removeLast()
                joined += text
                current.children.append(.text(joined))
            } else {
                current.children.append(.text(text))
            }
            stack.append(current)
        }

        func endElement(_ name: XMLName) {
            guard let done = stack.popLast() else { return }
            if stack.isEmpty { root = done } else { stack[stack.count - 1].children.append(.element(done)) }
        }
    }
}

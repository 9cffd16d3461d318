import Foundation
import SkyliftHTTPServer
import SkyliftCore

/// A property name: namespace URI plus local name (RFC 4918 §4.3).
struct PropertyName: Hashable, Codable, Sendable {
    var namespace: String
    var name: String

    static func dav(_ name: String) -> PropertyName { PropertyName(namespace: "DAV:", name: name) }
}

/// Why a WebDAV request body was refused: the status and the one-line reason to answer with.
struct DAVBodyError: Error {
    var status: Int
    var message: String

    var response: HTTPResponse { .text(status, message) }
}

/// Reading request bodies (through `XMLReader`: no DTD, bounded) and building multistatus answers.
enum DAVXML {
    static let namespace = "DAV:"

    /// The body's root element when it is a well-formed `DAV:<root>` document; otherwise the answer to give:
    /// 413 when it is too large, 400 for anything else (a DOCTYPE, another encoding, too deep, malformed).
    static func parse(_ bytes: [UInt8], root local: String, method: String) throws(DAVBodyError) -> XMLTree {
        let tree: XMLTree
        do { tree = try XMLReader.tree(bytes, limits: .davRequest) } catch {
            if case .tooLarge = error { throw DAVBodyError(status: 413, message: "\(method) body refused: \(error)") }
            throw DAVBodyError(status: 400, message: "\(method) body refused: \(error)")
        }
        guard isDAV(tree, local) else {
            throw DAVBodyError(status: 400, message: "\(method) body is not a well-formed DAV:\(local) document")
        }
        return tree
    }

    static func name(of element: XMLTree) -> PropertyName {
        PropertyName(namespace: element.name.namespace, name: element.name.local)
    }

    static func isDAV(_ element: XMLTree, _ local: String) -> Bool {
        element.name.namespace == namespace && element.name.local == local
    }

    /// Child elements only (no text).
    static func children(_ element: XMLTree) -> [XMLTree] { element.elements }

    static func child(_ element: XMLTree, _ local: String) -> XMLTree? { element.first(namespace, local) }

    /// The element as stand-alone XML (every namespace in scope declared on it), to store and insert later.
    static func standalone(_ element: XMLTree) -> String { element.xmlString }

    /// An empty element for a property name, e.g. in a 404 propstat.
    static func empty(_ p: PropertyName) -> XMLTree {
        let prefix = p.namespace == namespace ? "D" : p.namespace.isEmpty ? "" : "P"
        return XMLTree(XMLName(namespace: p.namespace, local: p.name, prefix: prefix))
    }

    /// A stored stand-alone element, ready to insert; read as strictly as a request body, since the sidecar
    /// lies in the served tree.
    static func element(_ xml: String) -> XMLTree? { try? XMLReader.tree(Array(xml.utf8), limits: .davRequest) }

    static func dav(_ name: String, _ children: [XMLTree] = [], text: String? = nil) -> XMLTree {
        XMLTree(XMLName(namespace: namespace, local: name, prefix: "D"), children, text: text)
    }

    /// A complete document; the `DAV:` namespace is declared on the root.
    static func document(_ root: XMLTree) -> [UInt8] { root.document }

    static func response(_ status: Int, _ root: XMLTree, headers: HTTPHeaders = [:]) -> HTTPResponse {
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
}

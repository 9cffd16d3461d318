import Foundation
import SkyliftCore

/// One `<response>` of a WebDAV `207 Multi-Status` PROPFIND answer.
public struct PropfindEntry: Sendable, Hashable {
    /// The `href`, percent-decoded path (absolute path or full URL as the server sent it).
    public var href: String
    public var info: ContentInfo
    public var isCollection: Bool
}

/// Parses PROPFIND multistatus bodies (RFC 4918 §9.1) with `XMLReader` (no DTD, bounded).
public enum PropfindResponse {
    /// The request body asking for the properties Skylift reads.
    public static let requestBody = """
    <?xml version="1.0" encoding="utf-8"?>
    <d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getcontentlength/><d:getetag/><d:getlastmodified/><d:getcontenttype/></d:prop></d:propfind>
    """

    /// The entries of `body`; throws `RemoteError.protocolViolation` naming `url` when it is not a multistatus
    /// document or the reader refuses it (a DOCTYPE, another encoding, past the bounds).
    public static func parse(_ body: [UInt8], url: URL) throws -> [PropfindEntry] {
        let collector = Collector()
        do { try XMLReader.read(body, limits: .serverResponse, into: collector) } catch {
            throw RemoteError.protocolViolation(url: url, reason: "PROPFIND answer refused: \(error)")
        }
        guard collector.sawMultistatus else {
            throw RemoteError.protocolViolation(url: url, reason: "PROPFIND answer is not a DAV multistatus document")
        }
        return collector.entries
    }

    /// Reads the reader's events; lives only inside `parse`.
    private final class Collector: XMLEventHandler {
        var entries: [PropfindEntry] = []
        var sawMultistatus = false
        private var current: PropfindEntry?
        private var text = ""
        private var okPropstat = true
        private var pending: [String: String] = [:]
        private var pendingCollection = false

        func startElement(_ name: XMLName, attributes: [XMLAttribute], namespaces: [String: String]) {
            text = ""
            switch name.local {
            case "multistatus": sawMultistatus = true
            case "response": current = PropfindEntry(href: "", info: ContentInfo(), isCollection: false)
            case "propstat": pending = [:]; pendingCollection = false; okPropstat = true
            case "collection": pendingCollection = true
            default: break
            }
        }

        func characters(_ string: String) { text += string }

        func endElement(_ element: XMLName) {
            let name = element.local
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch name {
            case "href": current?.href = value.removingPercentEncoding ?? value
            case "status": okPropstat = value.contains(" 200") || value.hasSuffix("200 OK")
            case "getcontentlength", "getetag", "getlastmodified", "getcontenttype": pending[name] = value
            case "propstat":
                guard okPropstat, current != nil else { break }
                if let l = pending["getcontentlength"].flatMap({ Int64(digits: $0.trimmingSpaces()) }) { current?.info.length = l }
                if let e = pending["getetag"], !e.isEmpty { current?.info.etag = e }
                if let t = pending["getcontenttype"], !t.isEmpty { current?.info.contentType = t }
                if let m = pending["getlastmodified"].flatMap(HTTPDate.parse) { current?.info.lastModified = m }
                if pendingCollection { current?.isCollection = true }
            case "response":
                if let c = current { entries.append(c) }
                current = nil
            default: break
            }
            text = ""
        }
    }
}

import Foundation
import SkyliftCore

/// One `<response>` of a WebDAV `207 Multi-Status` PROPFIND answer.
public struct PropfindEntry: Sendable, Hashable {
    /// The `href`, percent-decoded path (absolute path or full URL as the server sent it).
    public var href: String
    public var info: ContentInfo
    public var isCollection: Bool
    /// SHA-256 of the file, when the server sent a digest property (`repr-digest`, ownCloud's `checksums`).
    public var sha256: [UInt8]? = nil
    /// MD5 of the file, when ownCloud's `checksums` carries one.
    public var md5: [UInt8]? = nil
}

/// Parses PROPFIND multistatus bodies (RFC 4918 §9.1) with `XMLReader` (no DTD, bounded).
public enum PropfindResponse {
    /// The request body asking for the properties Skylift reads.
    public static let requestBody = """
    <?xml version="1.0" encoding="utf-8"?>
    <d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getcontentlength/><d:getetag/><d:getlastmodified/><d:getcontenttype/></d:prop></d:propfind>
    """

    /// ``requestBody`` plus the digest properties the embedded cloud serves on request (`repr-digest`) and
    /// ownCloud's `checksums`, for clients that check what they download.
    public static let requestBodyWithDigests = """
    <?xml version="1.0" encoding="utf-8"?>
    <d:propfind xmlns:d="DAV:" xmlns:S="urn:skylift" xmlns:oc="http://owncloud.org/ns"><d:prop><d:resourcetype/><d:getcontentlength/><d:getetag/><d:getlastmodified/><d:getcontenttype/><S:repr-digest/><oc:checksums/></d:prop></d:propfind>
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
            case "getcontentlength", "getetag", "getlastmodified", "getcontenttype", "repr-digest": pending[name] = value
            case "checksum": pending["checksum"] = value
            case "propstat":
                guard okPropstat, current != nil else { break }
                if let l = pending["getcontentlength"].flatMap({ Int64(digits: $0.trimmingSpaces()) }) { current?.info.length = l }
                if let e = pending["getetag"], !e.isEmpty { current?.info.etag = e }
                if let t = pending["getcontenttype"], !t.isEmpty { current?.info.contentType = t }
                if let m = pending["getlastmodified"].flatMap(HTTPDate.parse) { current?.info.lastModified = m }
                if pendingCollection { current?.isCollection = true }
                readDigests()
            case "response":
                if let c = current { entries.append(c) }
                current = nil
            default: break
            }
            text = ""
        }

        /// `repr-digest` holds a `Repr-Digest` value; `checksum` holds `SHA1:hex MD5:hex SHA256:hex` words.
        private func readDigests() {
            if let repr = pending["repr-digest"], let sha = ServerDigest.sha256(["Repr-Digest": repr]) { current?.sha256 = sha }
            for word in (pending["checksum"] ?? "").split(separator: " ") {
                let kv = word.split(separator: ":", maxSplits: 1)
                guard kv.count == 2, let bytes = Hex.bytes(String(kv[1])) else { continue }
                switch kv[0].uppercased() {
                case "SHA256" where bytes.count == 32 && current?.sha256 == nil: current?.sha256 = bytes
                case "MD5" where bytes.count == 16: current?.md5 = bytes
                default: break
                }
            }
        }
    }
}

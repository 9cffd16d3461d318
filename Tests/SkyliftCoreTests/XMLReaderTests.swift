import Foundation
@testable import SkyliftCore
import Testing
import TestProbes

/// Collects every event as text, to check nothing of a refused document's entities came through.
final class EventLog: XMLEventHandler {
    var text = ""
    func startElement(_ name: XMLName, attributes: [XMLAttribute], namespaces: [String: String]) {
        text += "<\(name.local)" + attributes.map { " \($0.name.local)=\($0.value)" }.joined() + ">"
    }
    func characters(_ string: String) { text += string }
    func endElement(_ name: XMLName) { text += "</\(name.local)>" }
}

@Suite struct XMLReaderTests {
    static let limits = XMLLimits.davRequest

    func tree(_ xml: String, limits: XMLLimits = Self.limits) throws(XMLReadError) -> XMLTree {
        try XMLReader.tree(Array(xml.utf8), limits: limits)
    }

    func refusal(_ xml: String, limits: XMLLimits = Self.limits) -> XMLReadError? {
        refusal(Array(xml.utf8), limits: limits)
    }

    func refusal(_ bytes: [UInt8], limits: XMLLimits = Self.limits) -> XMLReadError? {
        do { _ = try XMLReader.tree(bytes, limits: limits); return nil } catch { return error }
    }

    @Test func readsNamespacesAttributesTextAndCDATA() throws {
        let t = try tree("""
        <?xml version="1.0" encoding="UTF-8"?>
        <D:propertyupdate xmlns:D="DAV:" xmlns:z="urn:z"><D:set><D:prop>\
        <z:color xml:lang="en" z:tone="dark" plain="1">deep &amp; <![CDATA[<blue>]]> &#x263A;</z:color>\
        <empty xmlns=""/></D:prop></D:set></D:propertyupdate>
        """)
        #expect(t.name == XMLName(namespace: "DAV:", local: "propertyupdate", prefix: "D"))
        let prop = try #require(t.first("DAV:", "set")?.first("DAV:", "prop"))
        let color = try #require(prop.first("urn:z", "color"))
        #expect(color.text == "deep & <blue> \u{263A}")
        #expect(color.attributes == [
            XMLAttribute(name: XMLName(namespace: "", local: "plain"), value: "1"),
            XMLAttribute(name: XMLName(namespace: XMLName.xmlNamespace, local: "lang", prefix: "xml"), value: "en"),
            XMLAttribute(name: XMLName(namespace: "urn:z", local: "tone", prefix: "z"), value: "dark"),
        ])
        #expect(color.namespaces == ["D": "DAV:", "z": "urn:z"])
        #expect(prop.first("", "empty") != nil)
    }

    @Test func writtenElementsReadBackTheSame() throws {
        let original = try tree("""
        <a:x xmlns:a="urn:a" xmlns="urn:d" k="q&quot;&#10;&lt;"><y>1 &lt; 2 &gt; 0 &amp;</y><a:z/><n xmlns="">t</n></a:x>
        """)
        let text = original.xmlString
        let again = try tree(text)
        #expect(again == original, "\(text)")
        // Built elements declare what they need, and nothing else.
        let built = XMLTree(XMLName(namespace: "DAV:", local: "prop", prefix: "D"),
                            [XMLTree(XMLName(namespace: "urn:p", local: "v", prefix: "P"), [], text: "a<b")])
        #expect(built.xmlString == "<D:prop xmlns:D=\"DAV:\"><P:v xmlns:P=\"urn:p\">a&lt;b</P:v></D:prop>")
        #expect(try tree(built.xmlString).first("urn:p", "v")?.text == "a<b")
    }

    @Test func refusesEveryMarkupDeclaration() throws {
        let secret = try SecretFile()
        let attacks = [
            "<!DOCTYPE x [<!ENTITY e SYSTEM \"\(secret.url.absoluteString)\">]><x>&e;</x>",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE x SYSTEM \"\(secret.url.absoluteString)\"><x/>",
            "<!doctype x [<!ENTITY e \"\(secret.marker)\">]><x>&e;</x>",
            "<!DOCTYPE lolz [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><x>&b;</x>",
            "<x><!-- <!DOCTYPE y> --></x>",
            "<x><![CDATA[ <!ENTITY e> ]]></x>",
            "<x/><!ELEMENT x ANY>",
        ]
        for attack in attacks {
            let error = refusal(attack)
            guard case .declaration? = error else { Issue.record("not refused as a declaration: \(attack) -> \(String(describing: error))"); continue }
            #expect(!"\(error!)".contains(secret.marker))
        }
        #expect(refusal("<!DOCTYPE x><x/>")?.description == "XML document has a <!DOCTYPE declaration; DTDs and entity declarations are not accepted")
        // Comments and CDATA sections themselves are fine.
        #expect(try tree("<x><!-- note --><![CDATA[a]]></x>").text == "a")
    }

    /// The reader opens no file and makes no connection for a DOCTYPE naming a real file and a loopback
    /// listener, wherever it stands: the file is watched with inotify and the listener's queue is checked. The
    /// handler has seen nothing of the document when the refusal comes, since a DOCTYPE precedes the root.
    @Test func doctypesNamingFilesAndURLsLoadNothing() throws {
        let secret = try SecretFile()
        let listener = try LoopbackListener()
        #if os(Linux)
        let opens = try FileOpenWatch(secret.url.path)
        #endif
        for xml in [
            "<!DOCTYPE x [<!ENTITY e SYSTEM \"\(secret.url.absoluteString)\">]><x>&e;</x>",
            "<!DOCTYPE x [<!ENTITY e SYSTEM \"\(secret.url.path)\">]><x a=\"1\">&e;</x>",
            "<?xml version=\"1.0\"?><!DOCTYPE x SYSTEM \"\(secret.url.absoluteString)\"><x/>",
            "<!DOCTYPE x [<!ENTITY e SYSTEM \"http://127.0.0.1:\(listener.port)/e\">]><x>&e;</x>",
            "<!-- c --> <!DOCTYPE x SYSTEM \"http://127.0.0.1:\(listener.port)/dtd\"><x/>",
        ] {
            let log = EventLog()
            do {
                try XMLReader.read(Array(xml.utf8), limits: Self.limits, into: log)
                Issue.record("accepted: \(xml)")
            } catch {
                #expect(error == .declaration("DOCTYPE"), "\(xml)")
            }
            #expect(log.text.isEmpty, "\(xml) -> \(log.text)")
        }
        #if os(Linux)
        #expect(!opens.touched, "the reader opened \(secret.url.path)")
        #endif
        #expect(!listener.wasContacted, "the reader connected to 127.0.0.1:\(listener.port)")
    }

    @Test func refusesOtherEncodings() throws {
        let doctype = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><x>&e;</x>"
        var utf16BOM: [UInt8] = [0xFF, 0xFE]
        for unit in doctype.utf16 { utf16BOM += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        guard case .unsupportedEncoding? = refusal(utf16BOM) else { Issue.record("UTF-16 with BOM accepted"); return }
        guard case .unsupportedEncoding? = refusal(Array(utf16BOM.dropFirst(2))) else { Issue.record("UTF-16 without BOM accepted"); return }
        #expect(refusal("<?xml version=\"1.0\" encoding=\"UTF-7\"?><x>+ADw-!DOCTYPE</x>") == .unsupportedEncoding("it declares encoding \"UTF-7\""))
        #expect(refusal("<?xml version='1.0' encoding = 'iso-8859-1' ?><x/>") != nil)
        #expect(refusal([0x3C, 0x78, 0x3E, 0xE9, 0x3C, 0x2F, 0x78, 0x3E]) == .unsupportedEncoding("an invalid UTF-8 sequence"))
        // A declaration not at the start is refused rather than trusted. Other processing instructions are refused
        // too: no WebDAV or S3 document needs one.
        #expect(refusal(" <?xml version=\"1.0\" encoding=\"UTF-7\"?><x/>") != nil)
        #expect(refusal("<?xml version=\"1.0\" encoding=\"us-ascii\"?><?xml-stylesheet href=\"s\"?><x/>") != nil)
        #expect(refusal("<x><?x?></x>") != nil)
        #expect(try tree("\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\"?><x>\u{E9}</x>").text == "\u{E9}")
    }

    @Test func boundsSizeDepthElementsAndText() throws {
        let small = XMLLimits(maxBytes: 200, maxDepth: 3, maxElements: 4, maxTextBytes: 10)
        #expect(refusal(String(repeating: " ", count: 201) + "<x/>", limits: small) == .tooLarge(bytes: 205, limit: 200))
        #expect(refusal("<a><b><c><d/></c></b></a>", limits: small) == .tooDeep(limit: 3))
        #expect(refusal("<a><b/><b/><b/><b/></a>", limits: small) == .tooManyElements(limit: 4))
        #expect(refusal("<a>12345678901</a>", limits: small) == .textTooLong(limit: 10))
        #expect(refusal("<a>1234567&amp;&#x41;901</a>", limits: small) == .textTooLong(limit: 10))
        #expect(try tree("<a><b><c>1234567890</c></b><b/></a>", limits: small).elements.count == 2)
        // Deep nesting far past the bound is refused, not recursed into.
        let deep = String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000)
        #expect(refusal(deep, limits: XMLLimits(maxBytes: 1 << 20, maxDepth: 32, maxElements: 1 << 20, maxTextBytes: 10)) == .tooDeep(limit: 32))
    }

    @Test func refusesMalformedAndNamespaceErrors() {
        for bad in ["", "not xml", "<a>", "<a></b>", "<a/><b/>", "<p:a/>", "<a xmlns:p=\"\"><p:b/></a>", "<a p:x=\"1\"/>",
                    "<a>&undeclared;</a>", "<a>&#0;</a>", "<a b=\"1\" b=\"2\"/>"] {
            guard case .malformed? = refusal(bad) else { Issue.record("accepted or misjudged: \(bad) -> \(String(describing: refusal(bad)))"); continue }
        }
    }
}

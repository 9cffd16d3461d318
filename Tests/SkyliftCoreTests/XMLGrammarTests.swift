@testable import SkyliftCore
import Testing

/// The grammar of Skylift's own XML reader, piece by piece: namespaces, references, line ends, names, the
/// structure of a document, encodings, and where errors point.
@Suite struct XMLGrammarTests {
    func tree(_ xml: String, limits: XMLLimits = .davRequest) throws(XMLReadError) -> XMLTree {
        try XMLReader.tree(Array(xml.utf8), limits: limits)
    }

    func refusal(_ bytes: [UInt8], limits: XMLLimits = .davRequest) -> XMLReadError? {
        do { _ = try XMLReader.tree(bytes, limits: limits); return nil } catch { return error }
    }

    func refusal(_ xml: String, limits: XMLLimits = .davRequest) -> XMLReadError? { refusal(Array(xml.utf8), limits: limits) }

    func isMalformed(_ xml: String) -> Bool {
        if case .malformed? = refusal(xml) { true } else { false }
    }

    @Test func namespaceDeclarationsHoldForTheirElementOnly() throws {
        let t = try tree("""
        <p:a xmlns:p="urn:1" xmlns="urn:d"><p:b xmlns:p="urn:2" q="1"><c/></p:b><p:d/><e xmlns=""><f/></e><g/></p:a>
        """)
        #expect(t.name == XMLName(namespace: "urn:1", local: "a", prefix: "p"))
        let b = try #require(t.first("urn:2", "b"))
        #expect(b.attributes == [XMLAttribute(name: XMLName(namespace: "", local: "q"), value: "1")])
        #expect(b.first("urn:d", "c") != nil && b.namespaces == ["p": "urn:2", "": "urn:d"])
        #expect(t.first("", "e")?.namespaces == ["p": "urn:1"])
        #expect(t.first("urn:1", "d") != nil)
        #expect(t.first("", "e")?.first("", "f") != nil)
        #expect(t.first("urn:d", "g") != nil)
        #expect(try tree("<x:a xmlns:x='urn:x' x:k='v' xml:space='preserve'/>").attributes.map(\.name.namespace)
            == ["urn:x", XMLName.xmlNamespace])
    }

    @Test func reservedAndUndeclaredNamespacesAreRefused() {
        for bad in ["<a xmlns:xmlns='urn:x'/>", "<a xmlns:xml='urn:x'/>", "<a xmlns:p='http://www.w3.org/XML/1998/namespace'/>",
                    "<a xmlns='http://www.w3.org/2000/xmlns/'/>", "<xmlns:a/>", "<a><p:b xmlns:q='u'/></a>",
                    "<a xmlns:p='u'><p:b/></a><p:c/>", "<a xmlns:p='u'/><p:b/>", "<a:b:c xmlns:a='u'/>", "<:a/>", "<a:/>",
                    "<a x:k='1' xmlns:x='u' y:k='2' xmlns:y='u'/>"] {
            #expect(isMalformed(bad), "\(bad)")
        }
        #expect(refusal("<a xmlns:xml='http://www.w3.org/XML/1998/namespace'/>") == nil)
    }

    @Test func referencesAreThePredefinedFiveAndCharacters() throws {
        #expect(try tree("<a>&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#x1F600;&#233;</a>").text == "<>&\"'AB\u{1F600}\u{E9}")
        #expect(try tree("<a k='&lt;&#x9;&#10;&#13;'/>").attributes.first?.value == "<\t\n\r")
        for bad in ["<a>&#xFFFE;</a>", "<a>&#xD800;</a>", "<a>&#x110000;</a>", "<a>&#1;</a>", "<a>&#;</a>", "<a>&#x;</a>",
                    "<a>&#12a;</a>", "<a>&amp</a>", "<a>& b</a>", "<a>&nbsp;</a>", "<a>&#99999999999999999999999;</a>",
                    "<a k='&e;'/>", "&amp;<a/>", "<a>&#X43;</a>"] {
            #expect(isMalformed(bad), "\(bad)")
        }
    }

    @Test func lineEndsAndAttributeValuesAreNormalised() throws {
        #expect(try tree("<a>1\r\n2\r3\n<![CDATA[4\r\n5]]></a>").text == "1\n2\n3\n4\n5")
        #expect(try tree("<a k='1\r\n2\t3\n4\r5'/>").attributes.first?.value == "1 2 3 4 5")
        #expect(try tree("<a k=\"it's\" j='say \"hi\"'/>").attributes.map(\.value) == ["say \"hi\"", "it's"])
    }

    @Test func structureIsChecked() throws {
        for bad in ["", "  ", "<a>", "<a></b>", "<a></a></a>", "</a>", "<a/><b/>", "text<a/>", "<a/>text", "<![CDATA[x]]><a/>",
                    "<a>]]></a>", "<a><!-- x -- y --></a>", "<a><!-- open</a>", "<a><![CDATA[open</a>", "<a b='1'c='2'/>",
                    "<a b=c/>", "<a b/>", "<a b='<'/>", "<a b='1' b='1'/>", "<1a/>", "<-a/>", "<a", "<a b='1", "< a/>", "<a></ a>"] {
            #expect(isMalformed(bad), "\(bad.debugDescription)")
        }
        #expect(try tree("\n<!-- before --> <a >x<!-- in -->y<b\n/></a\n> <!-- after -->\n").text == "xy")
        #expect(try tree("<\u{E9}l\u{E8}ve \u{E2}ge='9'>\u{263A}</\u{E9}l\u{E8}ve>").name.local == "\u{E9}l\u{E8}ve")
        #expect(try tree("<a.b-c_d:e\u{B7}f xmlns:a.b-c_d='u'/>").name.local == "e\u{B7}f")
    }

    @Test func onlyUTF8IsRead() {
        let invalid: [[UInt8]] = [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xFF]]
        for bytes in invalid {
            #expect(refusal(Array("<a>".utf8) + bytes + Array("</a>".utf8)) == .unsupportedEncoding("an invalid UTF-8 sequence"), "\(bytes)")
            #expect(refusal(Array("<a k='".utf8) + bytes + Array("'/>".utf8)) == .unsupportedEncoding("an invalid UTF-8 sequence"), "\(bytes)")
            #expect(refusal(Array("<a><!--".utf8) + bytes + Array("--></a>".utf8)) == .unsupportedEncoding("an invalid UTF-8 sequence"), "\(bytes)")
        }
        #expect(refusal([0xFE, 0xFF, 0, 0x3C]) == .unsupportedEncoding("a UTF-16 or UTF-32 byte order mark"))
        #expect(refusal([0x3C, 0x61, 0x3E, 0, 0x3C, 0x2F, 0x61, 0x3E]) == .unsupportedEncoding("a NUL byte (UTF-16 or UTF-32 text?)"))
        #expect(isMalformed("<a>\u{1}</a>") && isMalformed("<a>\u{FFFF}</a>") && isMalformed("<a k='\u{8}'/>"))
        #expect(refusal("<?xml version='1.0' encoding='US-ASCII' standalone='yes'?><a/>") == nil)
        for bad in ["<?xml version='2.0'?><a/>", "<?xml encoding='utf-8'?><a/>", "<?xml version='1.0' standalone='maybe'?><a/>",
                    "<?xml version='1.0'encoding='utf-8'?><a/>", "<?xml version='1.0' encoding='utf-8' ?>", "<?xml version='1.0'?>"] {
            #expect(isMalformed(bad), "\(bad)")
        }
    }

    @Test func errorsSayWhere() {
        #expect(refusal("<a>\n  <b>\n    <\u{E9}\u{E9}>&bogus;</\u{E9}\u{E9}>\n  </b>\n</a>")
            == .malformed(line: 3, column: 9, reason: "a reference to an undeclared entity"))
        #expect(refusal("<a>\r\n</b>") == .malformed(line: 2, column: 1, reason: "an end tag that does not match its start tag"))
        #expect(refusal("<a>")?.description == "XML is not well-formed at line 1, column 4: the document ends before its root element does")
    }

    @Test func attributesPerElementAndTheirLengthAreBounded() {
        let limits = XMLLimits(maxBytes: 1 << 20, maxDepth: 8, maxElements: 8, maxTextBytes: 16, maxAttributes: 3)
        #expect(refusal("<a b='1' c='2' xmlns:d='u'/>", limits: limits) == nil)
        #expect(refusal("<a b='1' c='2' d='3' e='4'/>", limits: limits) == .tooManyAttributes(limit: 3))
        #expect(refusal("<a b='12345678901234567'/>", limits: limits) == .textTooLong(limit: 16))
        let many = "<a " + (0..<300).map { "a\($0)='\($0)'" }.joined(separator: " ") + "/>"
        #expect(refusal(many) == .tooManyAttributes(limit: XMLLimits.davRequest.maxAttributes))
    }

    @Test func whatIsReadIsWrittenBackTheSame() throws {
        for xml in ["<a xmlns=''><b/></a>", "<a xmlns='urn:d' xmlns:p='urn:p'><p:b p:k='1' k='&amp;&#10;'>t&lt;<![CDATA[<x>]]></p:b><c xmlns=''/></a>",
                    "<D:multistatus xmlns:D='DAV:'><D:response><D:href>/a%20b</D:href></D:response></D:multistatus>",
                    "<a>\u{1F600} \u{E9}\r\n<b xml:lang='fr'>\t</b></a>"] {
            let first = try tree(xml)
            let again = try tree(first.xmlString)
            #expect(again == first, "\(first.xmlString)")
        }
    }
}

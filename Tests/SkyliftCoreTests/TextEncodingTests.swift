import SkyliftCore
import Testing

/// Hex, percent escapes and HTML text: the one implementation each that every module uses.
@Suite struct TextEncodingTests {
    @Test func hexBothWays() {
        #expect(Hex.string([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        #expect(Hex.string([0x0f, 0xa5], uppercase: true) == "0FA5")
        #expect(Hex.string([UInt8]()) == "")
        #expect(Hex.bytes("000fA5ff") == [0x00, 0x0f, 0xa5, 0xff])
        for bad in ["0", "0g", "+1", " 01"] { #expect(Hex.bytes(bad) == nil, "\(bad)") }
    }

    @Test func percentDecoding() {
        #expect(PercentEncoding.decode("a%20b%2Fc%2f".utf8) == Array("a b/c/".utf8))
        #expect(PercentEncoding.decode("%00%FF".utf8) == [0x00, 0xff])
        for bad in ["%", "%4", "%G0", "a%2", "%%41"] { #expect(PercentEncoding.decode(bad.utf8) == nil, "\(bad)") }
        #expect(PercentEncoding.escape(0x0a) == Array("%0A".utf8))
        // A slice keeps its own indexes: decoding one in the middle of a buffer must not read past it.
        let whole = Array("x/%41%4".utf8)
        #expect(PercentEncoding.decode(whole[2 ..< 5]) == Array("A".utf8))
        #expect(PercentEncoding.decode(whole[5...]) == nil)
    }

    @Test func htmlText() {
        #expect(HTMLText.escaped(#"<a href="x">Tom & 'Jerry'</a>"#)
            == "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;")
        #expect(HTMLText.escaped("plain ü") == "plain ü")
    }
}

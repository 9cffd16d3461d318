import Foundation
import SkyliftCore
import Testing

@Suite struct RangeHeaderTests {
    @Test func parsesAndResolvesEveryForm() throws {
        let h = try #require(RangeHeader("bytes=0-99, 200-, -50"))
        #expect(h.specs == [.bounded(first: 0, last: 99), .from(first: 200), .suffix(length: 50)])
        #expect(h.resolve(length: 1000) == .satisfiable([
            ByteRange(offset: 0, length: 100), ByteRange(offset: 200, length: 800), ByteRange(offset: 950, length: 50),
        ]))
        #expect(h.headerValue == "bytes=0-99,200-,-50")
        // A last byte past the end is clamped; a suffix longer than the file is the whole file.
        #expect(RangeHeader("bytes=5-999")?.resolve(length: 10) == .satisfiable([ByteRange(offset: 5, length: 5)]))
        #expect(RangeHeader("bytes=-99")?.resolve(length: 10) == .satisfiable([ByteRange(offset: 0, length: 10)]))
    }

    @Test func unsatisfiableAndInvalid() {
        #expect(RangeHeader("bytes=10-")?.resolve(length: 10) == .unsatisfiable)
        #expect(RangeHeader("bytes=-0")?.resolve(length: 10) == .unsatisfiable)
        #expect(RangeHeader("bytes=0-0")?.resolve(length: 0) == .unsatisfiable)
        for bad in ["items=0-1", "bytes=", "bytes=5-1", "bytes=a-b", "bytes=+1-2", "bytes=1", "0-1", "bytes=1-2-3", "bytes= , ",
                    "bytes=9223372036854775808-", "bytes=1 -2", "bytes =1-2", "bytes=-", "bytes=\u{0301}1-2"] {
            #expect(RangeHeader(bad) == nil, "\(bad)")
        }
    }

    @Test func caseSpacesAndEmptyElementsAsTheGrammarAllows() {
        #expect(RangeHeader("  BYTES=0-1\t")?.specs == [.bounded(first: 0, last: 1)])
        #expect(RangeHeader("Bytes=\t5- , ,\t-7 ,")?.specs == [.from(first: 5), .suffix(length: 7)])
        #expect(RangeHeader("bytes=9223372036854775807-")?.specs == [.from(first: .max)])
        #expect(RangeHeader("bytes=0-0")?.specs == [.bounded(first: 0, last: 0)])
    }
}

@Suite struct ValueTypeTests {
    @Test func httpDateRoundTrip() throws {
        let date = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.format(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == date)
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        for t in stride(from: -86_400 * 400, to: 4_102_444_800, by: 7_777_777) {
            let d = Date(timeIntervalSince1970: TimeInterval(t))
            #expect(HTTPDate.parse(HTTPDate.format(d)) == d)
        }
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 32 Nov 1994 08:49:37 GMT") == nil)
    }

    @Test func entityTags() {
        #expect(EntityTag.parseList("*") == nil)
        #expect(EntityTag.parseList(#""a", W/"b,c" ,"d""#) == [#""a""#, #"W/"b,c""#, #""d""#])
        #expect(EntityTag.strongMatch(#""a""#, #""a""#))
        #expect(!EntityTag.strongMatch(#"W/"a""#, #""a""#))
        #expect(EntityTag.weakMatch(#"W/"a""#, #""a""#))
    }

    @Test func byteCounts() {
        #expect(ByteCount.parse("2G") == 2 << 30)
        #expect(ByteCount.parse("512MiB") == 512 << 20)
        #expect(ByteCount.parse("1.5k") == 1536)
        #expect(ByteCount.parse("17") == 17)
        for bad in ["", "G", "-1M", "12X", "nan"] { #expect(ByteCount.parse(bad) == nil, "\(bad)") }
        #expect(ByteCount.format(17) == "17 B")
        #expect(ByteCount.format(1536) == "1.5 KiB")
    }

    @Test func hexDigits() {
        #expect(Hex.bytes("00ff7Fa0") == [0x00, 0xff, 0x7f, 0xa0])
        #expect(Hex.bytes("") == [])
        #expect(Hex.bytes("abc") == nil)
        #expect(Hex.bytes("zz") == nil)
        #expect(Hex.value(of: UInt8(ascii: "g")) == nil)
        // Contiguous bytes, a lazy sequence and nothing at all: the same digits either way.
        let bytes: [UInt8] = [0x00, 0x0f, 0xa5, 0xff]
        #expect(Hex.string(bytes) == "000fa5ff" && Hex.string(bytes[1...]) == "0fa5ff")
        #expect(Hex.string(bytes.lazy.map { $0 }, uppercase: true) == "000FA5FF")
        #expect(Hex.string([UInt8]()) == "")
        #expect(Hex.bytes(Hex.string(bytes)) == bytes)
    }

    @Test func retryDelaysGrowAndStayBounded() {
        let p = RetryPolicy(maxAttempts: 4, baseDelay: 1, maxDelay: 5)
        #expect(p.delay(beforeRetry: 1, random: 1) == 1)
        #expect(p.delay(beforeRetry: 3, random: 1) == 4)
        #expect(p.delay(beforeRetry: 9, random: 1) == 5)
        #expect(p.delay(beforeRetry: 3, random: 0) == 2)
        #expect(p.allowsAnother(after: 3) && !p.allowsAnother(after: 4))
    }

    @Test func headersAreCaseInsensitiveAndDescriptionHidesValues() {
        var h: HTTPHeaders = ["Authorization": "Bearer secret", "X-A": "1"]
        h.add("x-a", "2")
        #expect(h["x-a"] == "1" && h.values("X-A") == ["1", "2"])
        h.set("X-A", "3")
        #expect(h.values("x-a") == ["3"])
        #expect(!h.description.contains("secret"))
        #expect(MediaType.forPath("a/b.MP4") == "video/mp4")
        #expect(MediaType.forPath("dir.d/noext") == "application/octet-stream")
        #expect(MediaType.forPath("/dav/x.tar.gz") == "application/gzip" && MediaType.forPath("photo.jpg") == "image/jpeg")
        #expect(MediaType.forPath("trailing.") == "application/octet-stream" && MediaType.forPath("") == "application/octet-stream")
        #expect(MediaType.forPath("é.JpEg") == "image/jpeg")
    }

    @Test func setKeepsOneFieldAndLeavesAnEqualOneAlone() {
        var h: HTTPHeaders = ["A": "1", "B": "2"]
        h.set("a", "1")
        #expect(h.fields.map(\.name) == ["A", "B"], "the same value already there: nothing moves")
        h.add("b", "3")
        h.set("B", "2")
        #expect(h.values("b") == ["2"] && h.fields.count == 2, "two fields become one")
        h.set("C", "x")
        #expect(h.fields.map(\.name) == ["A", "B", "C"])
    }

    @Test func contentRangeMatchesItsDecimalForm() {
        let cases: [(Int64, Int64, Int64)] = [(0, 1, 1), (0, 0, 0), (5, 10, 100), (999, 1, 1000),
                                              (Int64.max - 10, 10, Int64.max), (1_000_000_007, 4096, 9_000_000_000)]
        for (offset, length, total) in cases {
            let r = ByteRange(offset: offset, length: length)
            #expect(r.contentRange(total: total) == "bytes " + String(offset) + "-" + String(offset + length - 1) + "/" + String(total))
        }
    }
}

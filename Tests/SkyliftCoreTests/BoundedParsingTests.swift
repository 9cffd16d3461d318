import Foundation
import SkyliftCore
import Testing

/// Numbers from outside that do not fit: each parser refuses them (or clamps, where a value must be shown)
/// instead of trapping.
@Suite struct BoundedParsingTests {
    @Test func httpDatesOutsideFourDigitYearsAreRefused() {
        for bad in ["Sun, 06 Nov 99999999999999999 08:49:37 GMT", "Sun, 06 Nov 10000 08:49:37 GMT",
                    "Sun, 06 Nov 0000 08:49:37 GMT", "Sun, 06 Nov -1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
                    "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 1994 08:49:+7 GMT", "Sun, 06 Nov 1994 08::49:37 GMT",
                    "Sun, 99999999999999999999 Nov 1994 08:49:37 GMT"] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
        #expect(HTTPDate.parse("Mon, 01 Jan 0001 00:00:00 GMT").map(HTTPDate.seconds) == HTTPDate.earliest)
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT").map(HTTPDate.seconds) == HTTPDate.latest)
    }

    @Test func anyDateFormatsWithinTheSpan() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1e300)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1e300)) == "Mon, 01 Jan 0001 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .nan)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -61_000_000_000)) == "Fri, 26 Dec 0036 11:33:20 GMT")
        #expect(HTTPDate.seconds(Date(timeIntervalSince1970: .infinity)) == HTTPDate.latest)
    }

    @Test func headerIntegersAreDigitsThatFit() {
        let h: HTTPHeaders = ["Content-Length": " 9223372036854775807 ", "Upload-Offset": "9223372036854775808",
                              "Upload-Length": "-1", "A": "+5", "B": "1 2", "C": "", "D": "0x10", "E": "007"]
        #expect(h.integer("content-length") == Int64.max)
        for name in ["Upload-Offset", "Upload-Length", "A", "B", "C", "D", "Missing"] {
            #expect(h.integer(name) == nil, "\(name)")
        }
        #expect(h.integer("E") == 7)
    }

    @Test func contentRangeIsValidatedOnce() {
        let r = ContentRange("bytes 10-19/100")
        #expect(r?.first == 10 && r?.last == 19 && r?.total == 100 && r?.range == ByteRange(offset: 10, length: 10))
        #expect(ContentRange("bytes */0")?.total == 0)
        #expect(ContentRange("bytes 0-9/*")?.total == nil)
        #expect(ContentRange("BYTES 0-9/10")?.last == 9)
        for bad in ["items 0-9/10", "bytes 9-/10", "bytes 10-9/100", "bytes 0-100/100", "bytes -1-5/10", "bytes */*",
                    "bytes 0-99999999999999999999/*", "bytes 0-9/-10", "bytes 0-9", "bytes +0-9/10"] {
            #expect(ContentRange(bad) == nil, "\(bad)")
        }
        // The largest range there is parses, but no ByteRange can hold it.
        let all = ContentRange("bytes 0-9223372036854775807/*")
        #expect(all?.last == Int64.max && all?.range == nil)
    }

    @Test func byteRangesFromUntrustedNumbersAreChecked() {
        #expect(ByteRange(checkedOffset: -1, length: 5) == nil)
        #expect(ByteRange(checkedOffset: 5, length: -1) == nil)
        #expect(ByteRange(checkedOffset: Int64.max, length: 1) == nil)
        #expect(ByteRange(checkedOffset: Int64.max - 1, length: 1)?.end == Int64.max)
    }

    /// Inputs that crashed FoundationXML's XMLParser (found by fuzzing) before Skylift had its own reader: a
    /// name that is not UTF-8, processing instructions without data, one hidden in a broken XML declaration.
    @Test func xmlReaderRefusesWhatCrashedXMLParser() {
        func accepts(_ bytes: [UInt8]) -> Bool { (try? XMLReader.tree(bytes, limits: .davRequest)) != nil }
        #expect(accepts(Array("<?xml version=\"1.0\"?>\n<a><b/></a>".utf8)))
        #expect(accepts([0xEF, 0xBB, 0xBF] + Array("<?xml version='1.0'?><a/>".utf8)))
        #expect(accepts(Array("<a>é</a>".utf8)))
        #expect(!accepts([0x3C, 0xE9, 0x61, 0x2F, 0x3E]))
        for bad in ["<?a?><b/>", "<?xml version=\"1.0\"?><?x?><a/>", "<a><?pi data?></a>", "<?xml?><a/>", "<?xml version='1.0'",
                    "<?xml \"onal><?x?>"] {
            #expect(!accepts(Array(bad.utf8)), "\(bad)")
        }
    }

    @Test func nanosecondsSaturate() {
        #expect(Int64.nanoseconds(seconds: 10_000_000_000, nanoseconds: 5) == Int64.max)
        #expect(Int64.nanoseconds(seconds: -10_000_000_000, nanoseconds: 5) == Int64.min)
        #expect(Int64.nanoseconds(seconds: 9_223_372_036, nanoseconds: 999_999_999) == Int64.max)
        #expect(Int64.nanoseconds(seconds: 2, nanoseconds: 5) == 2_000_000_005)
    }
}

@Suite struct RangePlanTests {
    private func plan(_ value: String, _ length: Int64) -> RangePlan {
        RangePlan.plan(RangeHeader(value)!, length: length)
    }

    @Test func overlappingRangesNeverSendMoreThanTheFile() {
        #expect(plan("bytes=" + Array(repeating: "0-", count: 64).joined(separator: ","), 1000) == .whole)
        #expect(plan("bytes=0-,0-", 1000) == .whole)
        #expect(plan("bytes=0-599,400-999", 1000) == .whole)
        #expect(plan("bytes=0-0,0-0", 1) == .whole)
    }

    @Test func overlappingAndAdjacentRangesAreCoalesced() {
        #expect(plan("bytes=50-149,0-99", 1000) == .partial([ByteRange(offset: 0, length: 150)]))
        #expect(plan("bytes=0-9,10-19,30-39", 1000) == .partial([ByteRange(offset: 0, length: 20), ByteRange(offset: 30, length: 10)]))
        #expect(plan("bytes=-10,0-9", 1000) == .partial([ByteRange(offset: 990, length: 10), ByteRange(offset: 0, length: 10)]))
    }

    @Test func tooManyRangesAreServedWhole() {
        let many = (0 ..< 65).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",")
        #expect(plan("bytes=" + many, 10_000) == .whole)
        let allowed = (0 ..< 64).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",")
        guard case let .partial(parts) = plan("bytes=" + allowed, 10_000) else { Issue.record("not partial"); return }
        #expect(parts.count == 64)
    }

    @Test func unsatisfiableAndHugeNumbers() {
        #expect(plan("bytes=1000-", 1000) == .unsatisfiable)
        #expect(plan("bytes=9223372036854775806-9223372036854775807", 10) == .unsatisfiable)
        #expect(plan("bytes=0-9223372036854775807,-9223372036854775807", Int64.max) == .whole)
        #expect(plan("bytes=0-9223372036854775807", Int64.max) == .partial([ByteRange(offset: 0, length: Int64.max)]))
    }
}

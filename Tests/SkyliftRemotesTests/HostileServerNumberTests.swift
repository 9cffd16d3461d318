import Foundation
@testable import SkyliftRemotes
import SkyliftCore
import Testing
@testable import SkyliftS3

/// Numbers in servers' answers that do not fit: refused or ignored, never a negative offset or a trap.
@Suite struct HostileServerNumberTests {
    private func parts(_ xml: String) throws -> [S3Part] {
        let root = try S3XMLElement.parse(Array(xml.utf8))
        return root.all("Part").compactMap(S3Part.init(listed:))
    }

    @Test func listedPartsNeedSaneNumbersAndSizes() throws {
        let listed = try parts("""
        <ListPartsResult>\
        <Part><PartNumber>1</PartNumber><Size>5242880</Size><ETag>"a"</ETag></Part>\
        <Part><PartNumber>2</PartNumber><Size>-1</Size></Part>\
        <Part><PartNumber>0</PartNumber><Size>1</Size></Part>\
        <Part><PartNumber>10001</PartNumber><Size>1</Size></Part>\
        <Part><PartNumber>-3</PartNumber><Size>1</Size></Part>\
        <Part><PartNumber>4</PartNumber><Size>99999999999999999999</Size></Part>\
        <Part><PartNumber>10000</PartNumber><Size> 7 </Size></Part>\
        </ListPartsResult>
        """)
        #expect(listed == [S3Part(number: 1, etag: "\"a\"", size: 5_242_880), S3Part(number: 10_000, etag: "", size: 7)])
    }

    @Test func partTotalsThatOverflowAreNil() {
        let big = S3Part(number: 1, etag: "", size: Int64.max)
        #expect(S3Part.total([big]) == Int64.max)
        #expect(S3Part.total([big, S3Part(number: 2, etag: "", size: 1)]) == nil)
        #expect(S3Part.total([]) == 0)
    }

    @Test func propfindLengthsAndDatesThatDoNotFitAreDropped() throws {
        let xml = """
        <?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/dav/a</d:href><d:propstat><d:prop>\
        <d:getcontentlength>99999999999999999999</d:getcontentlength>\
        <d:getlastmodified>Sun, 06 Nov 99999999999999999 08:49:37 GMT</d:getlastmodified>\
        </d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>\
        <d:response><d:href>/dav/b</d:href><d:propstat><d:prop><d:getcontentlength>-5</d:getcontentlength></d:prop>\
        <d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>
        """
        let entries = try PropfindResponse.parse(Array(xml.utf8), url: URL(string: "http://h/dav/")!)
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { $0.info.length == nil && $0.info.lastModified == nil })
    }

    @Test func tusOffsetsFromAServerAreDigitsThatFit() {
        for (value, expected) in [("42", Int64(42)), ("-1", nil), ("+1", nil), ("9223372036854775808", nil), ("1e3", nil)] {
            let h: HTTPHeaders = ["Upload-Offset": value, "Upload-Length": value, "Tus-Max-Size": value, "Tus-Resumable": "1.0.0"]
            #expect(TusProtocol.offset(h) == expected, "\(value)")
            #expect(TusProtocol.length(h) == expected, "\(value)")
            #expect(TusOptions(headers: h)?.maxSize == expected, "\(value)")
        }
    }
}

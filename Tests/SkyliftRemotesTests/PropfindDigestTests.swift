import Foundation
import SkyliftHashing
import SkyliftRemotes
import Testing

/// The digest properties a PROPFIND answer may carry: the embedded cloud's `repr-digest` (a `Repr-Digest`
/// value) and ownCloud's `oc:checksums` (`SHA1:hex MD5:hex SHA256:hex`); refused ones (404 propstat) and
/// malformed values give none.
@Suite struct PropfindDigestTests {
    static let sha = Digest.hash(.sha256, Array("pixels".utf8)), md5 = Digest.hash(.md5, Array("pixels".utf8))

    func parse(_ props: String, status: String = "200 OK") throws -> PropfindEntry {
        let xml = """
        <?xml version="1.0" encoding="utf-8"?>
        <D:multistatus xmlns:D="DAV:" xmlns:S="urn:skylift" xmlns:oc="http://owncloud.org/ns">
          <D:response><D:href>/dav/a.jpg</D:href>
            <D:propstat><D:prop><D:getcontentlength>6</D:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
            <D:propstat><D:prop>\(props)</D:prop><D:status>HTTP/1.1 \(status)</D:status></D:propstat>
          </D:response>
        </D:multistatus>
        """
        return try #require(try PropfindResponse.parse(Array(xml.utf8), url: URL(string: "http://h/dav/")!).first)
    }

    @Test func reprDigestAndOwnCloudChecksumsAreRead() throws {
        let repr = try parse("<S:repr-digest>sha-256=:\(Data(Self.sha).base64EncodedString()):</S:repr-digest>")
        #expect(repr.sha256 == Self.sha && repr.md5 == nil)
        let oc = try parse("<oc:checksums><oc:checksum>SHA1:\(Digest.hash(.sha1, Array("pixels".utf8)).hexString) MD5:\(Self.md5.hexString) SHA256:\(Self.sha.hexString)</oc:checksum></oc:checksums>")
        #expect(oc.sha256 == Self.sha && oc.md5 == Self.md5 && oc.info.length == 6)
    }

    @Test func refusedOrMalformedDigestsAreLeftOut() throws {
        #expect(try parse("<S:repr-digest/><oc:checksums/>", status: "404 Not Found").sha256 == nil)
        let bad = try parse("<S:repr-digest>sha-256=:bm90IDMyIGJ5dGVz:</S:repr-digest><oc:checksums><oc:checksum>MD5:zz SHA256:12</oc:checksum></oc:checksums>")
        #expect(bad.sha256 == nil && bad.md5 == nil)
    }
}

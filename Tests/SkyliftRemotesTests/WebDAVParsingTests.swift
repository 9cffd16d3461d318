import Foundation
import SkyliftHashing
import SkyliftRemotes
import SkyliftCore
import Testing

@Suite struct WebDAVParsingTests {
    @Test func multistatusEntries() throws {
        let xml = """
        <?xml version="1.0" encoding="utf-8"?>
        <D:multistatus xmlns:D="DAV:">
          <D:response><D:href>/dav/photos/</D:href>
            <D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
          </D:response>
          <D:response><D:href>/dav/photos/a%20b.jpg</D:href>
            <D:propstat><D:prop><D:resourcetype/><D:getcontentlength>1234</D:getcontentlength><D:getetag>"e1"</D:getetag>
              <D:getlastmodified>Sun, 06 Nov 1994 08:49:37 GMT</D:getlastmodified></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
            <D:propstat><D:prop><D:getcontenttype/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>
          </D:response>
        </D:multistatus>
        """
        let entries = try PropfindResponse.parse(Array(xml.utf8), url: URL(string: "http://h/dav/photos/")!)
        #expect(entries.count == 2)
        #expect(entries[0].isCollection && entries[0].href == "/dav/photos/")
        #expect(!entries[1].isCollection && entries[1].href == "/dav/photos/a b.jpg")
        #expect(entries[1].info.length == 1234 && entries[1].info.etag == "\"e1\"")
        #expect(entries[1].info.lastModified == Date(timeIntervalSince1970: 784_111_777))
        #expect(throws: RemoteError.self) { try PropfindResponse.parse(Array("<html/>".utf8), url: URL(string: "http://h/")!) }
    }

    @Test func pathsAreEncodedPerSegment() {
        let folder = URL(string: "http://h:1/dav/photos")!
        #expect(RemotePath.folder(folder).absoluteString == "http://h:1/dav/photos/")
        #expect(RemotePath.url("a b/c#1?.mp4", in: folder).absoluteString == "http://h:1/dav/photos/a%20b/c%231%3F.mp4")
        #expect(RemotePath.parents(of: "a/b/c.mp4") == ["a", "a/b"])
        #expect(RemotePath.isValid("a/b.mp4") && !RemotePath.isValid("../x") && !RemotePath.isValid("a//b"))
    }

    @Test func serverDigests() {
        let data = Array("hello".utf8)
        let sha = Digest.hash(.sha256, data)
        #expect(ServerDigest.sha256(["Repr-Digest": "sha-512=:AAAA:, sha-256=:\(sha.base64String):"]) == sha)
        #expect(ServerDigest.sha256(["Digest": "SHA-256=\(sha.base64String)"]) == sha)
        #expect(ServerDigest.sha256(["OC-Checksum": "SHA1:abc SHA256:\(sha.hexString)"]) == sha)
        #expect(ServerDigest.sha256(["Digest": "md5=XUFAKrxLKna5cZ2REBfFkg=="]) == nil)
    }
}

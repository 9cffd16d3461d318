import Foundation
import SkyliftHTTPClient
import SkyliftHTTPServer
@testable import SkyliftRemotes
import SkyliftCore
import Testing
import TestProbes
@testable import SkyliftS3

/// A server whose every XML answer carries a DOCTYPE naming a secret file and a loopback listener: a WebDAV
/// PROPFIND gets a multistatus, an S3 listing a ListBucketResult, each with the entities inside.
final class DoctypeServer: HTTPHandler {
    let secret: SecretFile
    let listener: LoopbackListener

    init(secret: SecretFile, listener: LoopbackListener) {
        self.secret = secret
        self.listener = listener
    }

    var prolog: String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <!DOCTYPE r [<!ENTITY file SYSTEM "\(secret.url.absoluteString)"><!ENTITY net SYSTEM "http://127.0.0.1:\(listener.port)/x">]>
        """
    }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        let body = request.method == "PROPFIND"
            ? prolog + "<D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/f/&file;&net;</D:href><D:propstat><D:prop>"
                + "<D:getetag>&file;</D:getetag></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>"
            : prolog + "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>&file;&net;</Key><Size>1</Size>"
                + "<ETag>\"e\"</ETag></Contents></ListBucketResult>"
        return .respond(HTTPResponse(status: request.method == "PROPFIND" ? 207 : 200,
                                     headers: ["Content-Type": "application/xml"], body: .bytes(Array(body.utf8))))
    }
}

@Suite struct HostileXMLAnswerTests {
    func withServer(_ body: (String, DoctypeServer) async throws -> Void) async throws {
        let handler = DoctypeServer(secret: try SecretFile(), listener: try LoopbackListener())
        #if os(Linux)
        let opens = try FileOpenWatch(handler.secret.url.path)
        #endif
        let server = HTTPServer(configuration: .init(), handler: handler)
        try server.start()
        defer { server.stop() }
        try await body(server.baseURL, handler)
        #if os(Linux)
        #expect(!opens.touched, "the client opened \(handler.secret.url.path)")
        #endif
        #expect(!handler.listener.wasContacted, "the client connected to the listener")
    }

    @Test func webDAVListingWithADoctypeIsRefusedNamingTheURL() async throws {
        try await withServer { base, handler in
            let folder = try #require(URL(string: base + "/f/"))
            let remote = WebDAVRemote(folderURL: folder, http: RemoteHTTP(transport: makeDefaultTransport(), timeout: 10))
            do {
                _ = try await remote.propfind(folder, depth: 1)
                Issue.record("a multistatus with a DOCTYPE was accepted")
            } catch let error as RemoteError {
                guard case let .protocolViolation(url, reason) = error else { Issue.record("\(error)"); return }
                #expect(url == folder)
                #expect(reason.contains("<!DOCTYPE"))
                #expect(error.description.hasPrefix(folder.absoluteString) && !error.description.contains(handler.secret.marker))
            }
        }
    }

    @Test func s3ListingWithADoctypeIsRefusedNamingTheURL() async throws {
        try await withServer { base, handler in
            let configuration = S3Configuration(endpoint: try #require(URL(string: base)),
                                                credentials: S3Credentials(accessKeyID: "K", secretAccessKey: "S"), addressing: .path)
            let client = S3Client(configuration: configuration, transport: makeDefaultTransport())
            do {
                let listed = try await client.listObjects(bucket: "bucket")
                Issue.record("a listing with a DOCTYPE was accepted: \(listed)")
            } catch let error as S3Error {
                guard case let .invalidResponse(resource, reason) = error else { Issue.record("\(error)"); return }
                #expect(resource == "s3://bucket/")
                #expect(reason.contains("\(base)/bucket") && reason.contains("<!DOCTYPE"), "\(reason)")
                #expect(!error.description.contains(handler.secret.marker))
            }
        }
    }

    @Test func s3DocumentsParseWithoutADoctype() throws {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
            + "<Contents><Key>a &amp; b</Key></Contents></ListBucketResult>"
        let root = try S3XMLElement.parse(Array(xml.utf8))
        #expect(root.name == "ListBucketResult" && root.child("Contents")?["Key"] == "a & b")
        #expect(throws: XMLReadError.declaration("DOCTYPE")) { try S3XMLElement.parse(Array("<!DOCTYPE x><x/>".utf8)) }
    }
}

import Foundation
import SkyliftCore
@testable import SkyliftStorageServer
import Testing
import TestPrograms
import TestProbes

/// Dead properties over a bucket: kept in each object's metadata (a folder's on its marker), so one instance sets
/// what another lists, a COPY or MOVE on the service carries them, and a set larger than a bucket keeps is 507 with
/// nothing changed.
@Suite(.serialized, .timeLimit(.minutes(3))) struct BucketPropertyTests {
    static func proppatch(_ server: StorageServer, _ path: String, set pairs: [(String, String)]) throws -> CurlResult {
        let props = pairs.map { "<Z:\($0.0)>\($0.1)</Z:\($0.0)>" }.joined()
        let body = """
        <?xml version="1.0" encoding="utf-8"?>
        <D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:skylift:test"><D:set><D:prop>\(props)</D:prop></D:set></D:propertyupdate>
        """
        return try Curl.run(["-X", "PROPPATCH", "-H", "Content-Type: application/xml", "--data-binary", body, server.baseURL + path])
    }

    static func propfind(_ server: StorageServer, _ path: String) throws -> String {
        let body = #"<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:Z="urn:skylift:test"><D:prop><Z:rating/><Z:note/></D:prop></D:propfind>"#
        return try Curl.run(["-X", "PROPFIND", "-H", "Depth: 0", "--data-binary", body, server.baseURL + path]).text
    }

    @Test(arguments: S3Peer.allCases) func propertiesSetOnOneInstanceAreListedOnAnotherAndTravel(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer)
        let first = try BucketTusTests.serve(store), second = try BucketTusTests.serve(store)
        defer { first.stop(); second.stop() }
        let body = randomBytes(20_000)
        try await store.write("films/a.bin", body: AsyncStream { $0.yield(body); $0.finish() })
        let recorded = try await store.stat("films/a.bin")?.sha256

        let set = try Self.proppatch(first, "/dav/films/a.bin", set: [("rating", "5"), ("note", "seen twice")])
        #expect(set.status == 207 && set.text.contains("200 OK"), "\(set.text)")
        let listed = try Self.propfind(second, "/dav/films/a.bin")
        #expect(listed.contains(">5</") && listed.contains("seen twice"), "\(listed)")
        // The bytes and their SHA-256 record are untouched.
        #expect(try Curl.run([second.baseURL + "/dav/films/a.bin"]).body == body)
        #expect(try await store.stat("films/a.bin")?.sha256 == recorded)

        // A folder's properties sit on its marker, made for them (the folder had none: it lived on its key).
        let folder = try Self.proppatch(second, "/dav/films/", set: [("note", "holidays")])
        #expect(folder.status == 207, "\(folder.status) \(folder.text)")
        #expect(try Self.propfind(first, "/dav/films/").contains("holidays"))

        #expect(try Curl.run(["-X", "COPY", "-H", "Destination: \(first.baseURL)/dav/films/b.bin", first.baseURL + "/dav/films/a.bin"]).status == 201)
        #expect(try Self.propfind(second, "/dav/films/b.bin").contains("seen twice"))
        #expect(try Curl.run(["-X", "MOVE", "-H", "Destination: \(first.baseURL)/dav/moved/", first.baseURL + "/dav/films/"]).status == 201)
        #expect(try Self.propfind(second, "/dav/moved/a.bin").contains("seen twice"))
        #expect(try Self.propfind(second, "/dav/moved/").contains("holidays"))

        // More than a bucket keeps: 507, and the set stays as it was.
        let huge = try Self.proppatch(first, "/dav/moved/a.bin", set: [("note", String(repeating: "x", count: 8000))])
        #expect(huge.status == 207 && huge.text.contains("507"), "\(huge.text)")
        #expect(try Self.propfind(second, "/dav/moved/a.bin").contains("seen twice"))

        let remove = """
        <?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:skylift:test"><D:remove><D:prop><Z:note/></D:prop></D:remove></D:propertyupdate>
        """
        #expect(try Curl.run(["-X", "PROPPATCH", "--data-binary", remove, second.baseURL + "/dav/moved/a.bin"]).status == 207)
        let after = try Self.propfind(first, "/dav/moved/a.bin")
        #expect(!after.contains("seen twice") && after.contains(">5</"), "\(after)")
        #expect(try Self.proppatch(first, "/dav/nothing.bin", set: [("note", "x")]).status == 404)

        // A file replaced by a PUT or a tus upload hands its properties on, as on a folder store.
        #expect(try Curl.run(["-X", "PUT", "--data-binary", "new bytes", second.baseURL + "/dav/moved/a.bin"]).status == 204)
        #expect(try Self.propfind(first, "/dav/moved/a.bin").contains(">5</"))
        let meta = "filename " + Data("a.bin".utf8).base64EncodedString()
        let tus = try Curl.run(["-X", "POST", "-H", "Tus-Resumable: 1.0.0", "-H", "Upload-Length: 3", "-H", "Upload-Metadata: \(meta)",
                                "-H", "Content-Type: application/offset+octet-stream", "--data-binary", "abc", first.baseURL + "/dav/moved/"])
        #expect(tus.status == 201, "\(tus.text)")
        #expect(try Curl.run([second.baseURL + "/dav/moved/a.bin"]).text == "abc")
        #expect(try Self.propfind(second, "/dav/moved/a.bin").contains(">5</"))
    }
}

import Foundation
import SkyliftCore
@testable import SkyliftStorageServer
import Testing
import TestPrograms
import TestProbes

/// The web app over a bucket: its secret, sessions and share links live in the bucket, so a browser signed in
/// through one instance is signed in on another, a share link made on one opens on another, and a sign-out or a
/// revocation on one holds on the other.
@Suite(.serialized, .timeLimit(.minutes(3))) struct BucketWebAppTests {
    /// The `Cookie` header value of a session started with the token on `server`.
    static func signIn(_ server: StorageServer) throws -> String {
        let answer = try Curl.run([server.baseURL + "/?token=\(ServerFixture.token)"], authenticated: false)
        let setCookie = try #require(answer.header("Set-Cookie"), "no cookie: \(answer.status) \(answer.text)")
        return String(setCookie.prefix { $0 != ";" })
    }

    /// The members of zip archive `body` and their bytes in hex, as Python's zipfile reads them (CRCs checked).
    static func members(_ body: [UInt8]) throws -> [String: String] {
        let file = try tempFile(body)
        defer { try? FileManager.default.removeItem(at: file) }
        let check = "import sys, zipfile, json\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\n"
            + "print(json.dumps({i.filename: z.read(i).hex() for i in z.infolist()}))"
        let r = try runTool(TestPrograms.python(), ["-c", check, file.path])
        guard r.status == 0, let map = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: String] else {
            Issue.record("not a zip: \(r.out)")
            return [:]
        }
        return map
    }

    static func withCookie(_ cookie: String, _ args: [String]) throws -> CurlResult {
        try Curl.run(["-H", "Cookie: \(cookie)", "-H", "Sec-Fetch-Site: same-origin"] + args, authenticated: false)
    }

    @Test(arguments: S3Peer.allCases) func sessionsAndShareLinksHoldOnEveryInstance(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer)
        let first = try BucketTusTests.serve(store), second = try BucketTusTests.serve(store)
        defer { first.stop(); second.stop() }
        let clip = randomBytes(50_000)
        try await store.write("films/clip.mp4", body: AsyncStream { $0.yield(clip); $0.finish() })
        try await store.write("films/more/b.txt", body: AsyncStream { $0.yield(Array("b".utf8)); $0.finish() })

        // The front page asks for the token; with it, a session.
        let front = try Curl.run([first.baseURL + "/"], authenticated: false)
        #expect(front.status == 200 && front.text.contains("token"), "\(front.status)")
        let cookie = try Self.signIn(first)
        let page = try Self.withCookie(cookie, [second.baseURL + "/"])
        #expect(page.text.contains("app.js"), "\(cookie) \(page.status) \(page.text.prefix(300))")
        let same = try Self.withCookie(cookie, [first.baseURL + "/dav/films/?list"])
        #expect(same.status == 200, "\(same.status) \(same.text)")
        let listed = try Self.withCookie(cookie, [second.baseURL + "/dav/films/?list"])
        #expect(listed.status == 200 && listed.text.contains("clip.mp4") && listed.text.contains("\"dir\":true"), "\(listed.text)")
        #expect(try Self.withCookie(cookie, [second.baseURL + "/dav/films/clip.mp4"]).body == clip)
        #expect(try Curl.run([second.baseURL + "/dav/films/?list"], authenticated: false).status == 401)
        #expect(try Self.withCookie(cookie, [second.baseURL + "/dav/films/?view=map"]).status == 501)
        let timeline = try Self.withCookie(cookie, [second.baseURL + "/dav/?timeline"])
        #expect(timeline.status == 200 && timeline.text.contains(#""path":"films/clip.mp4""#) && !timeline.text.contains("b.txt"),
                "\(timeline.text)")
        let found = try Self.withCookie(cookie, [second.baseURL + "/dav/?search=B"])
        #expect(found.status == 200 && found.text.contains(#""path":"films/more/b.txt""#) && !found.text.contains("clip"), "\(found.text)")
        // Paged: the first page's cursor leads on to the rest, nothing twice.
        let firstPage = try Self.withCookie(cookie, [second.baseURL + "/dav/?search=.&limit=1"])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(firstPage.body)) as? [String: Any])
        let cursor = try #require(parsed["next"] as? String, Comment(rawValue: firstPage.text))
        let rest = try Self.withCookie(cookie, [second.baseURL + "/dav/?search=.&limit=10&after=\(cursor)"])
        #expect(firstPage.text.contains("clip.mp4") && rest.text.contains("b.txt") && !rest.text.contains("clip.mp4"),
                Comment(rawValue: firstPage.text + " then " + rest.text))
        let zipped = try Self.withCookie(cookie, [second.baseURL + "/dav/films/?zip"])
        #expect(zipped.status == 200 && zipped.header("Content-Type") == "application/zip")
        #expect(try Self.members(zipped.body) == ["clip.mp4": clip.hexString, "more/": "", "more/b.txt": "62"])
        let picked = try Self.withCookie(cookie, [second.baseURL + "/dav/films/?zip&name=more"])
        #expect(try Self.members(picked.body) == ["more/": "", "more/b.txt": "62"])
        #expect(try Self.withCookie(cookie, [second.baseURL + "/dav/films/?zip&name=none"]).status == 404)

        // A link made on one instance opens on the other, a file by its name and a folder's members.
        let asked = try Self.withCookie(cookie, ["-X", "POST", "--data-binary", #"{"path": "/films/clip.mp4", "expires": "1h"}"#,
                                                  first.baseURL + "/api/share"])
        #expect(asked.status == 201, "\(asked.text)")
        let made = try #require(try JSONSerialization.jsonObject(with: Data(asked.body)) as? [String: Any])
        let link = try #require(made["link"] as? String)
        #expect(link.hasSuffix("/clip.mp4"))
        #expect(try Curl.run([second.baseURL + "/" + link], authenticated: false).body == clip)
        let ranged = try Curl.run(["-r", "10-19", second.baseURL + "/" + link], authenticated: false)
        #expect(ranged.status == 206 && ranged.body == Array(clip[10 ..< 20]))
        let folder = try Self.withCookie(cookie, ["-X", "POST", "--data-binary", #"{"path": "/films/more", "expires": "1h"}"#,
                                                   second.baseURL + "/api/share"])
        let folderLink = try #require((try JSONSerialization.jsonObject(with: Data(folder.body)) as? [String: Any])?["link"] as? String)
        #expect(try Curl.run([first.baseURL + "/" + folderLink + "b.txt"], authenticated: false).text == "b")
        #expect(try Curl.run([first.baseURL + "/" + folderLink + "?list"], authenticated: false).text.contains("b.txt"))
        #expect(try Self.members(try Curl.run([first.baseURL + "/" + folderLink + "?zip"], authenticated: false).body) == ["b.txt": "62"])
        #expect(try Curl.run([first.baseURL + "/" + folderLink + "../clip.mp4"], authenticated: false).status != 200)

        // Revoked on one, refused on the other; the registry is the same on both.
        let id = try #require(made["id"] as? String)
        let registry = try Self.withCookie(cookie, [second.baseURL + "/api/shares"])
        #expect(registry.text.contains(id), "\(registry.text)")
        #expect(try Self.withCookie(cookie, ["-X", "DELETE", second.baseURL + "/api/shares/\(id)"]).status == 204)
        #expect(try Curl.run([first.baseURL + "/" + link], authenticated: false).status == 403)

        // Signed out on one instance: the cookie is refused on the other too (it reads the sessions again within
        // a few seconds; a cookie it has not seen, at once).
        #expect(try Self.withCookie(cookie, ["-X", "POST", first.baseURL + "/signout"]).status == 303)
        var refused = false
        for _ in 0 ..< 80 where !refused {
            refused = try Self.withCookie(cookie, [second.baseURL + "/dav/films/?list"]).status == 401
            if !refused { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(refused, "the session signed out on one instance still works on the other")
        // A sign-in link made by one instance (as `serve` prints) is good once, on any.
        let signInLink = try #require(try first.signInLink())
        let code = String(signInLink.dropFirst(first.baseURL.count))
        #expect(try Curl.run([second.baseURL + code], authenticated: false).header("Set-Cookie") != nil)
        #expect(try Curl.run([first.baseURL + code], authenticated: false).header("Set-Cookie") == nil)
    }

    /// Wrong tokens over a bucket are throttled as over a folder: past a few, 429 with Retry-After.
    @Test func wrongTokensAreThrottled() async throws {
        let store = try await StoreBucket.make(.moto)
        let server = try BucketTusTests.serve(store)
        defer { server.stop() }
        var statuses: [Int] = []
        for _ in 0 ..< 12 {
            statuses.append(try Curl.run(["-H", "Authorization: Bearer wrong", server.baseURL + "/dav/"], authenticated: false).status)
        }
        #expect(statuses.contains(429), "\(statuses)")
    }

    /// Thumbnails of a bucket's images, made once (the image read into an unlinked file, gone after) and kept in the
    /// instance's cache folder; 304 for a current copy. Poster frames of videos: of a short one read whole, and of one
    /// past twice ``BucketThumbnails/videoEnds`` with its index at the end, from its two ends only. The timeline
    /// dates a photo with EXIF by it.
    @Test func imagesGetThumbnailsFromALocalCache() async throws {
        let store = try await StoreBucket.make(.rgw)
        let scratch = try TempFolder("bucket-thumbs")
        let still = scratch.url.appendingPathComponent("wide.jpg")
        try TestMedia.still(still, width: 600, height: 300)
        let bytes = [UInt8](try Data(contentsOf: still))
        try await store.write("photos/wide.jpg", body: AsyncStream { $0.yield(bytes); $0.finish() })
        try await store.write("photos/junk.mp4", body: AsyncStream { $0.yield([1, 2, 3]); $0.finish() })
        let dated = scratch.url.appendingPathComponent("dated.jpg")
        try TestMedia.still(dated, width: 64, height: 64)
        try TestMedia.addEXIF(dated, taken: "2019:07:04 12:00:00")
        let datedBytes = [UInt8](try Data(contentsOf: dated))
        try await store.write("photos/dated.jpg", body: AsyncStream { $0.yield(datedBytes); $0.finish() })
        for (name, large) in [("clip.mp4", false), ("long.mov", true)] {
            let video = scratch.url.appendingPathComponent(name)
            if large { try TestMedia.rawVideo(video, width: 640, height: 480, seconds: 3) } else {
                try TestMedia.video(video, width: 320, height: 240, seconds: 2)
            }
            let bytes = [UInt8](try Data(contentsOf: video))
            #expect(!large || Int64(bytes.count) > 2 * BucketThumbnails.videoEnds, "\(bytes.count)")
            try await store.write("photos/" + name, body: AsyncStream { $0.yield(bytes); $0.finish() })
        }
        var configuration = StorageConfiguration(root: URL(fileURLWithPath: "/nonexistent"), token: ServerFixture.token)
        configuration.bucket = store
        configuration.thumbnailFolder = scratch.url.appendingPathComponent("thumbs")
        let server = try StorageServer(configuration: configuration)
        try server.start()
        defer { server.stop() }

        let made = try Curl.run([server.baseURL + "/dav/photos/wide.jpg?thumb=256"])
        #expect(made.status == 200 && made.header("Content-Type") == "image/jpeg", "\(made.status) \(made.text.prefix(200))")
        let size = try #require(TestMedia.jpegSize(made.body))
        #expect(size.width == 256 && size.height == 128, "\(size)")
        let etag = try #require(made.header("ETag"))
        #expect(try Curl.run(["-H", "If-None-Match: \(etag)", server.baseURL + "/dav/photos/wide.jpg?thumb=256"]).status == 304)
        // The download is gone; the thumbnail stays in the cache.
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.appendingPathComponent("thumbs").path)
        #expect(!left.contains { $0.hasPrefix(".download-") }, "\(left)")
        #expect(try Curl.run([server.baseURL + "/dav/photos/wide.jpg?thumb=256"]).body == made.body)
        for name in ["clip.mp4", "long.mov"] {
            let poster = try Curl.run([server.baseURL + "/dav/photos/\(name)?thumb=256"])
            #expect(poster.status == 200 && poster.header("Content-Type") == "image/jpeg", "\(name): \(poster.status) \(poster.text.prefix(200))")
            let frame = try #require(TestMedia.jpegSize(poster.body))
            #expect(frame.width == 256 && frame.height == 192, "\(name): \(frame)")
        }
        #expect(try Curl.run([server.baseURL + "/dav/photos/junk.mp4?thumb=256"]).status == 415)
        // The timeline dates a photo by its EXIF (read from its head), the others by when they were stored.
        let timeline = try Curl.run([server.baseURL + "/dav/photos/?timeline"])
        #expect(timeline.status == 200 && timeline.text.contains(#""taken":"2019-07-04T12:00:00Z""#), "\(timeline.text)")
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        #expect(timeline.text.components(separatedBy: #""taken":"\#(year)-"#).count == 5, "\(timeline.text)")
        #expect(try Curl.run([server.baseURL + "/dav/photos/missing.jpg?thumb=256"]).status == 404)
        #expect(try Curl.run([server.baseURL + "/dav/photos/wide.jpg?thumb=100"]).status == 400)
    }
}

import Foundation
import Testing
import TestProbes

/// `GET <file>?thumb=<size>` on a real server: the answer's size and headers, refusals, the cache across a
/// restart and across a changed file, and share links.
@Suite struct ThumbnailRouteTests {
    let server: ServerFixture

    init() throws { server = try ServerFixture() }

    func picture(_ relative: String, width: Int, height: Int, orientation: UInt16 = 1) throws {
        let url = server.file(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try TestMedia.still(url, width: width, height: height)
        if orientation != 1 { try TestMedia.addEXIF(url, orientation: orientation) }
    }

    func thumb(_ path: String, _ extra: [String] = []) throws -> CurlResult { try Curl.run(extra + [server.url(path)]) }

    @Test func aThumbnailWithItsHeaders() throws {
        try picture("photos/wide.jpg", width: 600, height: 300, orientation: 6)
        let r = try thumb("/dav/photos/wide.jpg?thumb=256&v=%22abc%22")
        #expect(r.status == 200, "\(r.text)")
        #expect(r.header("content-type") == "image/jpeg")
        #expect(r.header("cache-control") == "private, max-age=31536000, immutable")
        let size = try #require(TestMedia.jpegSize(r.body))
        #expect(size.width == 128 && size.height == 256, "\(size)")
        let etag = try #require(r.header("etag"))
        let again = try thumb("/dav/photos/wide.jpg?thumb=256", ["-H", "If-None-Match: \(etag)"])
        #expect(again.status == 304 && again.body.isEmpty)
        let other = try thumb("/dav/photos/wide.jpg?thumb=128")
        #expect(other.status == 200 && other.header("etag") != etag)
    }

    @Test func refusals() throws {
        try picture("a.jpg", width: 100, height: 100)
        try server.write("notes.txt", Array("hello".utf8))
        try server.write("broken.png", Array("not a png".utf8))
        try FileManager.default.createDirectory(at: server.file("folder"), withIntermediateDirectories: true)
        for (path, status) in [("/dav/a.jpg?thumb=100", 400), ("/dav/a.jpg?thumb=", 400), ("/dav/a.jpg?thumb=256x", 400),
                               ("/dav/missing.jpg?thumb=256", 404), ("/dav/notes.txt?thumb=256", 415),
                               ("/dav/broken.png?thumb=256", 415), ("/dav/folder?thumb=256", 400), ("/dav/a.jpg?thumb=128%zz", 400)] {
            let r = try thumb(path)
            #expect(r.status == status, "\(path): \(r.status) \(r.text)")
        }
        let unauthenticated = try Curl.run([server.url("/dav/a.jpg?thumb=128")], authenticated: false)
        #expect(unauthenticated.status == 401)
    }

    @Test func theCacheOutlivesARestartAndFollowsAChangedFile() throws {
        try picture("p.jpg", width: 400, height: 300)
        let first = try thumb("/dav/p.jpg?thumb=128")
        #expect(first.status == 200)
        let cache = server.file(".skylift-thumbs")
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache.path)
        #expect(entries.count == 1, "\(entries)")
        let entry = cache.appendingPathComponent(try #require(entries.first))
        let inode = try FileManager.default.attributesOfItem(atPath: entry.path)[.systemFileNumber] as? Int
        #expect(try thumb("/dav/.skylift-thumbs/" + entry.lastPathComponent).status == 404, "the cache is not served")
        server.stop()
        try server.start()
        let second = try thumb("/dav/p.jpg?thumb=128")
        #expect(second.status == 200 && second.body == first.body && second.header("etag") == first.header("etag"))
        // Served from the entry the first server wrote: made again, it would have been renamed over it.
        #expect(try FileManager.default.attributesOfItem(atPath: entry.path)[.systemFileNumber] as? Int == inode)
        // The file changes (new content, same name): a new thumbnail under a new tag.
        let put = try Curl.run(["-X", "PUT", "--data-binary", "@" + (try tallJPEG().path), server.url("/dav/p.jpg")])
        #expect(put.status == 204 || put.status == 201, "\(put.status)")
        let third = try thumb("/dav/p.jpg?thumb=128")
        #expect(third.status == 200 && third.header("etag") != first.header("etag"))
        let size = try #require(TestMedia.jpegSize(third.body))
        #expect(size.width == 64 && size.height == 128, "\(size)")
    }

    /// A cached thumbnail is answered without making it again, and the path rules hold on that quick path too:
    /// a link inside the root is followed, a link out of it is not, whatever the cache holds.
    @Test func aCachedThumbnailKeepsThePathRules() throws {
        try picture("real/p.jpg", width: 400, height: 300)
        let outside = server.scratch.appendingPathComponent("outside.jpg")
        try TestMedia.still(outside, width: 400, height: 300)
        try FileManager.default.createSymbolicLink(atPath: server.file("inside.jpg").path, withDestinationPath: "real/p.jpg")
        try FileManager.default.createSymbolicLink(atPath: server.file("out.jpg").path, withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: server.file("linked").path, withDestinationPath: "real")
        let first = try thumb("/dav/real/p.jpg?thumb=128")
        #expect(first.status == 200, "\(first.text)")
        let cache = server.file(".skylift-thumbs")
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache.path)
        #expect(entries.count == 1, "\(entries)")
        let modified = try FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent(entries[0]).path)[.modificationDate] as? Date
        for path in ["/dav/real/p.jpg?thumb=128", "/dav/inside.jpg?thumb=128", "/dav/linked/p.jpg?thumb=128"] {
            let again = try thumb(path)
            #expect(again.status == 200 && again.body == first.body && again.header("etag") == first.header("etag"), "\(path): \(again.status)")
            #expect(again.header("x-content-type-options") == "nosniff", "\(path)")
        }
        #expect(try thumb("/dav/out.jpg?thumb=128").status == 404)
        #expect(try Curl.run([server.url("/dav/real/p.jpg?thumb=128")], authenticated: false).status == 401)
        #expect(try thumb("/dav/real/p.jpg?thumb=64").status == 400)
        // Answered from the entry already there: no second thumbnail made, the first not written again.
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path).count == 1)
        #expect(try FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent(entries[0]).path)[.modificationDate] as? Date == modified)
    }

    private func tallJPEG() throws -> URL {
        let url = server.scratch.appendingPathComponent("tall.jpg")
        try TestMedia.still(url, width: 150, height: 300, color: "blue")
        return url
    }

    @Test func shareLinksServeThumbnailsOfWhatTheyShare() throws {
        try picture("album/in.jpg", width: 300, height: 300)
        try picture("outside.jpg", width: 300, height: 300)
        let folder = try share("/album")
        let r = try Curl.run([server.url("/" + folder + "in.jpg?thumb=128")], authenticated: false)
        #expect(r.status == 200 && TestMedia.jpegSize(r.body).map { $0.width == 128 } == true, "\(r.status) \(r.text)")
        let escape = try Curl.run([server.url("/" + folder + "../outside.jpg?thumb=128")], authenticated: false)
        #expect(escape.status != 200)
        let file = try share("/album/in.jpg")
        let single = try Curl.run([server.url("/" + file + "?thumb=256")], authenticated: false)
        #expect(single.status == 200 && TestMedia.jpegSize(single.body).map { $0.height == 256 } == true, "\(single.status)")
        let timeline = try Curl.run([server.url("/" + folder + "?timeline")], authenticated: false)
        #expect(timeline.status == 200 && timeline.text.contains("\"path\":\"in.jpg\"") && !timeline.text.contains("outside"), "\(timeline.text)")
    }

    /// `POST /api/share` for `path`; the link (`s/…/` or `s/…/name`).
    func share(_ path: String) throws -> String {
        let r = try Curl.run(["-H", "Content-Type: application/json", "--data-binary", "{\"path\":\"\(path)\",\"expires\":\"30m\"}",
                              server.url("/api/share")])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any], "\(r.text)")
        return try #require(json["link"] as? String)
    }
}

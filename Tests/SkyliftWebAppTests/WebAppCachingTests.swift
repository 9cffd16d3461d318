import Foundation
import TestProbes
import Testing

/// `Cache-Control`, `nosniff` and `/favicon.ico`, against the real `skylift serve` process.
@Suite struct WebAppCachingTests {
    @Test func answersAreRevalidatedPrivateAndNeverSniffed() throws {
        let server = try WebAppServer()
        try FileManager.default.createDirectory(at: server.root.appendingPathComponent("f"), withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: server.root.appendingPathComponent("f/a.txt"))
        let auth = ["-H", "Authorization: Bearer \(server.token)"]

        let file = try server.curl("/dav/f/a.txt", auth)
        #expect(file.status == 200 && file.header("Cache-Control") == ["private, no-cache"])
        #expect(file.header("X-Content-Type-Options") == ["nosniff"])
        let etag = try #require(file.header("ETag").first)
        let again = try server.curl("/dav/f/a.txt", auth + ["-H", "If-None-Match: \(etag)"])
        #expect(again.status == 304 && again.header("X-Content-Type-Options") == ["nosniff"])
        // An answer that chose its own caching keeps it.
        #expect(try server.curl("/dav/f/?list", auth).header("Cache-Control") == ["no-store"])
        // Refusals, WebDAV answers and answers to bodies (PUT) carry the headers too.
        for answer in [try server.curl("/dav/f/a.txt"), try server.curl("/dav/f/", auth + ["-X", "PROPFIND", "-H", "Depth: 1"]),
                       try server.curl("/dav/f/b.txt", auth + ["-X", "PUT", "--data-binary", "x"])] {
            #expect(answer.header("X-Content-Type-Options") == ["nosniff"], "\(answer.status)")
            #expect(answer.header("Cache-Control").count == 1, "\(answer.status)")
        }

        let body = try JSONSerialization.data(withJSONObject: ["path": "/f", "expires": "1h"])
        let made = try server.curl("/api/share", auth + ["--data-binary", String(decoding: body, as: UTF8.self)])
        let link = "/" + (try #require((try JSONSerialization.jsonObject(with: made.body) as? [String: Any])?["link"] as? String))
        let shared = try server.curl(link + "a.txt")
        #expect(shared.status == 200 && shared.header("Cache-Control") == ["private, no-cache"])
        #expect(shared.header("X-Content-Type-Options") == ["nosniff"])
        let list = try server.curl(link + "?list")
        #expect(list.status == 200 && list.header("X-Content-Type-Options") == ["nosniff"])
        #expect(try server.curl(link).header("X-Content-Type-Options") == ["nosniff"])
    }

    @Test func theFaviconNeedsNoSignIn() throws {
        let server = try WebAppServer()
        let icon = try server.curl("/favicon.ico")
        #expect(icon.status == 200 && icon.header("Content-Type") == ["image/x-icon"])
        #expect(icon.header("X-Content-Type-Options") == ["nosniff"])
        // An ICO header with one 16×16 image whose bitmap fills the rest of the file.
        let b = [UInt8](icon.body)
        #expect(b.count > 22 && Array(b[0 ..< 6]) == [0, 0, 1, 0, 1, 0] && b[6] == 16 && b[7] == 16)
        let size = Int(b[14]) | Int(b[15]) << 8 | Int(b[16]) << 16 | Int(b[17]) << 24
        #expect(22 + size == b.count)
        #expect(try server.curl("/favicon.ico", ["-X", "POST"]).status == 405)
    }
}

import Foundation
import TestProbes
import Testing

/// `?search=` under `/dav/…` and under share links, against the real `skylift serve` process.
@Suite struct WebAppSearchTests {
    private struct Page: Decodable {
        struct Item: Decodable {
            let path: String, name: String, dir: Bool, size: Int64, modified: String, type: String, etag: String
        }
        let items: [Item]
        let next: String?
    }

    /// Every page of a search at `folder` (a URL path ending in `/`); the pages' item paths in order.
    private func search(_ server: WebAppServer, _ folder: String, _ text: String, limit: Int, auth: [String]) throws -> ([String], Int) {
        var paths: [String] = [], pages = 0, after = ""
        repeat {
            let q = "search=\(text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&limit=\(limit)&after=\(after)"
            let answer = try server.curl(folder + "?" + q, auth)
            #expect(answer.status == 200, "\(answer.text)")
            let page = try JSONDecoder().decode(Page.self, from: answer.body)
            #expect(page.items.count <= limit)
            paths += page.items.map(\.path)
            pages += 1
            guard let next = page.next else { break }
            after = next
        } while pages < 100
        return (paths, pages)
    }

    private func write(_ root: URL, _ path: String, _ text: String = "x") throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    @Test func namesBelowTheFolderInPagesWithoutCase() throws {
        let server = try WebAppServer()
        let auth = ["-H", "Authorization: Bearer \(server.token)"]
        for p in ["trip/Photo 1.JPG", "trip/day/photo2.jpg", "trip/day/notes.txt", "trip/PHOTOS/a.txt", "other/photo3.jpg",
                  "trip/caf\u{e9}-photo.jpg", "trip/cafe\u{301}-photo.jpg"] { try write(server.root, p, "12345") }
        try FileManager.default.createSymbolicLink(atPath: server.root.appendingPathComponent("trip/up").path, withDestinationPath: "..")
        let expected = ["PHOTOS", "Photo 1.JPG", "caf\u{e9}-photo.jpg", "cafe\u{301}-photo.jpg", "day/photo2.jpg"]
        // One page, and one item per page: the same entries, each once (the two é spellings are two files).
        let (all, _) = try search(server, "/dav/trip/", "PHOTO", limit: 500, auth: auth)
        #expect(Set(all) == Set(expected) && all.count == expected.count, "\(all)")
        let (paged, pages) = try search(server, "/dav/trip/", "photo", limit: 1, auth: auth)
        #expect(paged == all && pages >= expected.count)
        // The whole store: the link to the parent is not walked into (no loop), other/ is found.
        let (everywhere, _) = try search(server, "/dav/", "photo", limit: 2, auth: auth)
        #expect(everywhere.count == expected.count + 1 && everywhere.contains("other/photo3.jpg") && everywhere.contains("trip/day/photo2.jpg"))

        let raw = try server.curl("/dav/trip/?search=photo2", auth)
        #expect(raw.text.contains("\"path\":\"day/photo2.jpg\"") && raw.text.contains("\"next\":null"), "\(raw.text)")
        let first = try JSONDecoder().decode(Page.self, from: raw.body)
        let item = try #require(first.items.first)
        #expect(item.name == "photo2.jpg" && !item.dir && item.size == 5 && item.type == "image/jpeg" && item.modified.hasSuffix("Z"))
        #expect(try server.curl("/dav/trip/day/photo2.jpg", auth).header("ETag") == [item.etag])
        #expect(first.next == nil)
        // The signed-in app may search too; without credentials it may not.
        #expect(try server.curl("/dav/trip/?search=photo", ["-H", "Cookie: \(server.signIn())"]).status == 200)
        #expect(try server.curl("/dav/trip/?search=photo").status == 401)
    }

    @Test func badQueriesAreRefused() throws {
        let server = try WebAppServer()
        let auth = ["-H", "Authorization: Bearer \(server.token)"]
        try write(server.root, "d/a.txt")
        for q in ["search=", "search", "search=a&limit=0", "search=a&limit=501", "search=a&limit=1x", "search=a&search=b",
                  "search=%ZZ", "search=%FF", "search=a&after=!!", "search=a&after=" + cursor("../etc"),
                  "search=a&after=" + cursor("a//b"), "search=a&after=" + cursor(".skylift-webapp/secret"),
                  "search=" + String(repeating: "a", count: 257)] {
            #expect(try server.curl("/dav/d/?" + q, auth).status == 400, "\(q)")
        }
        #expect(try server.curl("/dav/d/a.txt?search=a", auth).status == 400)
        #expect(try server.curl("/dav/missing/?search=a", auth).status == 404)
        // A cursor naming something that is gone just goes on from where it would have been.
        let page = try JSONDecoder().decode(Page.self, from: try server.curl("/dav/?search=a&after=" + cursor("e/zzz"), auth).body)
        #expect(page.items.isEmpty && page.next == nil)
        let from = try JSONDecoder().decode(Page.self, from: try server.curl("/dav/?search=a&after=" + cursor("c"), auth).body)
        #expect(from.items.map(\.path) == ["d/a.txt"])
    }

    private func cursor(_ path: String) -> String {
        Data(path.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func theWalkIsBoundedInDepthAndPerRequest() throws {
        let server = try WebAppServer()
        let auth = ["-H", "Authorization: Bearer \(server.token)"]
        // 32 nested folders with a file in each: files up to 32 levels below the searched folder are found.
        var folder = "deep"
        for level in 1 ... 32 {
            folder += "/d"
            try write(server.root, "\(folder)/hit-\(level)")
        }
        let (deep, _) = try search(server, "/dav/deep/", "hit-", limit: 500, auth: auth)
        #expect(Set(deep.map { $0.split(separator: "/").last.map(String.init) ?? "" }) == Set((1 ... 31).map { "hit-\($0)" }))

        // More entries than one request looks at: the first page stops early with a cursor, the next finds the match.
        let wide = server.root.appendingPathComponent("wide")
        try FileManager.default.createDirectory(at: wide, withIntermediateDirectories: true)
        for i in 0 ..< 10_050 { _ = FileManager.default.createFile(atPath: wide.appendingPathComponent(String(format: "f%05d", i)).path, contents: nil) }
        _ = FileManager.default.createFile(atPath: wide.appendingPathComponent("zz-match").path, contents: nil)
        let first = try JSONDecoder().decode(Page.self, from: try server.curl("/dav/wide/?search=zz-match&limit=500", auth).body)
        #expect(first.items.isEmpty && first.next != nil)
        let (found, pages) = try search(server, "/dav/wide/", "zz-match", limit: 500, auth: auth)
        #expect(found == ["zz-match"] && pages == 2)
    }

    @Test func aShareLinkSearchesOnlyWhatItShares() throws {
        let server = try WebAppServer()
        try write(server.root, "shared/in/photo-a.jpg")
        try write(server.root, "secret-photo.jpg")
        try FileManager.default.createSymbolicLink(atPath: server.root.appendingPathComponent("shared/photo-out.jpg").path,
                                                   withDestinationPath: "../secret-photo.jpg")
        let (status, out) = try runProgram(skyliftBinary().path, ["share", "--root", server.root.path, "--url", server.url, "/shared"],
                                           environment: ["PATH": "/usr/bin:/bin"])
        #expect(status == 0, "\(out)")
        let link = String(try #require(out.split(separator: "\n").first).dropFirst(server.url.count))
        let (found, _) = try search(server, link, "photo", limit: 1, auth: [])
        #expect(found == ["in/photo-a.jpg"])
        let (inside, _) = try search(server, link + "in/", "PHOTO", limit: 10, auth: [])
        #expect(inside == ["photo-a.jpg"])
        #expect(try server.curl(link + "?search=photo&after=" + cursor("../secret-photo.jpg")).status == 400)
    }
}

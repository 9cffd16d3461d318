import Foundation
import Testing
import TestProbes

/// `GET <folder>/?timeline`: photos and videos below a folder, newest first by EXIF date (else the file's time),
/// paged by cursor, with bad parameters refused.
@Suite struct TimelineTests {
    let server: ServerFixture

    init() throws {
        server = try ServerFixture()
        try dated("2021/a.jpg", "2021:03:01 12:00:00")
        try dated("2023/deep/b.jpg", "2023:08:15 09:30:00")
        try dated("c.jpg", "2022:01:01 00:00:00")
        try TestMedia.video(server.file("clip.mp4"), width: 160, height: 120, seconds: 0.2)
        try setModified("clip.mp4", 1_500_000_000) // 2017-07-14
        try TestMedia.still(server.file("undated.png"), width: 40, height: 30)
        try setModified("undated.png", 1_800_000_000) // 2027-01-15: newest of all
        try server.write("notes.txt", Array("not a photo".utf8))
    }

    func dated(_ relative: String, _ taken: String) throws {
        let url = server.file(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try TestMedia.still(url, width: 64, height: 48)
        try TestMedia.addEXIF(url, taken: taken)
    }

    func setModified(_ relative: String, _ seconds: TimeInterval) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: server.file(relative).path)
    }

    struct Page: Decodable {
        struct Item: Decodable {
            let path, name, taken, type, etag: String
            let size: Int
        }
        let items: [Item]
        let next: String?
    }

    func page(_ query: String) throws -> Page {
        let r = try Curl.run([server.url("/dav/?timeline" + query)])
        #expect(r.status == 200, "\(r.text)")
        #expect(r.text.contains("\"next\":"), "next is always there: \(r.text)")
        return try JSONDecoder().decode(Page.self, from: Data(r.body))
    }

    @Test func newestFirstInPages() throws {
        let whole = try page("")
        #expect(whole.items.map(\.path) == ["undated.png", "2023/deep/b.jpg", "c.jpg", "2021/a.jpg", "clip.mp4"])
        #expect(whole.items.map(\.taken) == ["2027-01-15T08:00:00Z", "2023-08-15T09:30:00Z", "2022-01-01T00:00:00Z",
                                             "2021-03-01T12:00:00Z", "2017-07-14T02:40:00Z"])
        #expect(whole.next == nil)
        let b = try #require(whole.items.first { $0.name == "b.jpg" })
        #expect(b.type == "image/jpeg" && b.size > 0 && b.etag.hasPrefix("\""))
        #expect(whole.items.first { $0.name == "clip.mp4" }?.type == "video/mp4")
        var paths: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let p = try page("&limit=2" + (cursor.map { "&after=" + $0 } ?? ""))
            #expect(p.items.count <= 2)
            paths += p.items.map(\.path)
            cursor = p.next
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 3 && paths == whole.items.map(\.path), "\(pages) pages: \(paths)")
    }

    @Test func aSubfolderHasItsOwnTimeline() throws {
        let r = try Curl.run([server.url("/dav/2023/?timeline")])
        let p = try JSONDecoder().decode(Page.self, from: Data(r.body))
        #expect(p.items.map(\.path) == ["deep/b.jpg"])
    }

    @Test func badParameters() throws {
        for (query, status) in [("&limit=0", 400), ("&limit=501", 400), ("&limit=x", 400), ("&after=not*a*cursor", 400),
                                ("&after=AAAA", 400)] {
            let r = try Curl.run([server.url("/dav/?timeline" + query)])
            #expect(r.status == status, "\(query): \(r.status) \(r.text)")
        }
        #expect(try Curl.run([server.url("/dav/c.jpg?timeline")]).status == 400)
        #expect(try Curl.run([server.url("/dav/nothing/?timeline")]).status == 404)
        #expect(try page("&limit=500").items.count == 5)
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SkyliftCore
import Testing

@Suite struct RangedGetTests {
    let f: ServerFixture
    let content: [UInt8]

    init() throws {
        f = try ServerFixture()
        content = randomBytes(200_003)
        try f.write("media/clip.mp4", content)
    }

    @Test func wholeFileWithValidatorsAndType() throws {
        let r = try Curl.run([f.url("/dav/media/clip.mp4")])
        #expect(r.status == 200)
        #expect(r.body == content)
        #expect(r.header("Content-Type") == "video/mp4")
        #expect(r.header("Accept-Ranges") == "bytes")
        #expect(r.header("Content-Length") == "\(content.count)")
        let etag = try #require(r.header("ETag"))
        #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
        #expect(r.header("Last-Modified").flatMap(HTTPDate.parse) != nil)
        let head = try Curl.run(["-I", f.url("/dav/media/clip.mp4")])
        #expect(head.status == 200 && head.header("Content-Length") == "\(content.count)")
        #expect(head.header("ETag") == etag)
    }

    @Test func randomSingleRangesAreByteExact() throws {
        let n = content.count
        for _ in 0..<25 {
            let a = Int.random(in: 0..<n), b = Int.random(in: a..<min(n + 50, a + 70_000))
            let r = try Curl.run(["-H", "Range: bytes=\(a)-\(b)", f.url("/dav/media/clip.mp4")])
            let last = min(b, n - 1)
            #expect(r.status == 206)
            #expect(r.header("Content-Range") == "bytes \(a)-\(last)/\(n)")
            #expect(r.body == Array(content[a...last]))
        }
        let suffix = try Curl.run(["-H", "Range: bytes=-777", f.url("/dav/media/clip.mp4")])
        #expect(suffix.status == 206 && suffix.body == Array(content.suffix(777)))
        #expect(suffix.header("Content-Range") == "bytes \(n - 777)-\(n - 1)/\(n)")
        let open = try Curl.run(["-H", "Range: bytes=199000-", f.url("/dav/media/clip.mp4")])
        #expect(open.status == 206 && open.body == Array(content[199_000...]))
        let bigSuffix = try Curl.run(["-H", "Range: bytes=-999999999", f.url("/dav/media/clip.mp4")])
        #expect(bigSuffix.status == 206 && bigSuffix.body == content)
    }

    @Test func unsatisfiableAndIgnoredRanges() throws {
        let n = content.count
        let r = try Curl.run(["-H", "Range: bytes=\(n)-", f.url("/dav/media/clip.mp4")])
        #expect(r.status == 416)
        #expect(r.header("Content-Range") == "bytes */\(n)")
        #expect(try Curl.run(["-H", "Range: bytes=-0", f.url("/dav/media/clip.mp4")]).status == 416)
        // Syntactically invalid ranges are ignored: the whole file.
        let bad = try Curl.run(["-H", "Range: bytes=5-2", f.url("/dav/media/clip.mp4")])
        #expect(bad.status == 200 && bad.body == content)
        let other = try Curl.run(["-H", "Range: items=1-2", f.url("/dav/media/clip.mp4")])
        #expect(other.status == 200 && other.body.count == n)
    }

    @Test func multipleRangesAreMultipartByteranges() throws {
        // Apart from each other and from the suffix: overlapping or touching ranges would be coalesced.
        let specs = [(10, 19), (1000, 1999), (150_000, 180_002)]
        let value = "bytes=" + specs.map { "\($0.0)-\($0.1)" }.joined(separator: ",") + ",-5"
        let r = try Curl.run(["-H", "Range: \(value)", f.url("/dav/media/clip.mp4")])
        #expect(r.status == 206)
        let type = try #require(r.header("Content-Type"))
        #expect(type.hasPrefix("multipart/byteranges; boundary="))
        let boundary = String(type.split(separator: "=", maxSplits: 1)[1])
        let parts = try Multipart.parse(r.body, boundary: boundary)
        let expected = specs.map { ($0.0, $0.1) } + [(content.count - 5, content.count - 1)]
        #expect(parts.count == expected.count)
        for (part, (a, b)) in zip(parts, expected) {
            #expect(part.headers["content-range"] == "bytes \(a)-\(b)/\(content.count)")
            #expect(part.headers["content-type"] == "video/mp4")
            #expect(part.body == Array(content[a...b]))
        }
        #expect(r.header("Content-Length") == "\(r.body.count)")
    }

    @Test func conditionalRequests() throws {
        let url = f.url("/dav/media/clip.mp4")
        let first = try Curl.run(["-I", url])
        let etag = try #require(first.header("ETag"))
        let lastModified = try #require(first.header("Last-Modified"))
        #expect(try Curl.run(["-H", "If-None-Match: \(etag)", url]).status == 304)
        #expect(try Curl.run(["-H", "If-None-Match: \"other\", \(etag)", url]).status == 304)
        #expect(try Curl.run(["-H", "If-None-Match: *", url]).status == 304)
        #expect(try Curl.run(["-H", "If-None-Match: \"other\"", url]).status == 200)
        #expect(try Curl.run(["-H", "If-Modified-Since: \(lastModified)", url]).status == 304)
        #expect(try Curl.run(["-H", "If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT", url]).status == 200)
        #expect(try Curl.run(["-H", "If-Match: \"nope\"", url]).status == 412)
        #expect(try Curl.run(["-H", "If-Match: \(etag)", url]).status == 200)
        #expect(try Curl.run(["-H", "If-Match: W/\(etag)", url]).status == 412)
        #expect(try Curl.run(["-H", "If-Unmodified-Since: Sun, 06 Nov 1994 08:49:37 GMT", url]).status == 412)
        // If-Range: a matching validator keeps the range, a stale one gets the whole file.
        let kept = try Curl.run(["-H", "Range: bytes=0-9", "-H", "If-Range: \(etag)", url])
        #expect(kept.status == 206 && kept.body == Array(content[0...9]))
        let stale = try Curl.run(["-H", "Range: bytes=0-9", "-H", "If-Range: \"stale\"", url])
        #expect(stale.status == 200 && stale.body == content)
        let byDate = try Curl.run(["-H", "Range: bytes=0-9", "-H", "If-Range: \(lastModified)", url])
        #expect(byDate.status == 206)
        // A rewrite changes the validator.
        try f.write("media/clip.mp4", Array(content.reversed()))
        let after = try Curl.run(["-I", url])
        #expect(after.header("ETag") != etag)
        #expect(try Curl.run(["-H", "If-None-Match: \(etag)", url]).status == 200)
    }

    @Test func urlSessionRangeAndMissingFile() async throws {
        var request = URLRequest(url: URL(string: f.url("/dav/media/clip.mp4"))!)
        request.setValue("Bearer \(ServerFixture.token)", forHTTPHeaderField: "Authorization")
        request.setValue("bytes=100-199", forHTTPHeaderField: "Range")
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 206)
        #expect(Array(data) == Array(content[100...199]))
        #expect(try Curl.run([f.url("/dav/media/nope.mp4")]).status == 404)
        #expect(try Curl.run(["-H", "Range: bytes=0-1", f.url("/dav/media/nope.mp4")]).status == 404)
    }

    @Test func folderGetListsEntriesButNotHiddenState() throws {
        try f.write("media/b c.txt", [1])
        let r = try Curl.run([f.url("/dav/media/")])
        #expect(r.status == 200)
        #expect(r.text.contains("clip.mp4") && r.text.contains("b%20c.txt"))
        #expect(!(try Curl.run([f.url("/dav/")]).text.contains(".skylift")))
    }
}

/// A small multipart parser for checking responses.
enum Multipart {
    struct Part { var headers: [String: String]; var body: [UInt8] }
    struct Malformed: Error {}

    static func parse(_ data: [UInt8], boundary: String) throws -> [Part] {
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [Part] = []
        var i = try find(delimiter, in: data, from: 0)
        while true {
            i += delimiter.count
            if data[i] == UInt8(ascii: "-") && data[i + 1] == UInt8(ascii: "-") { break }
            i += 2 // CRLF
            let headerEnd = try find(Array("\r\n\r\n".utf8), in: data, from: i)
            var headers: [String: String] = [:]
            for line in String(decoding: data[i..<headerEnd], as: UTF8.self).components(separatedBy: "\r\n") {
                let kv = line.split(separator: ":", maxSplits: 1)
                if kv.count == 2 { headers[kv[0].lowercased()] = kv[1].trimmingCharacters(in: .whitespaces) }
            }
            let bodyStart = headerEnd + 4
            let next = try find(Array("\r\n".utf8) + delimiter, in: data, from: bodyStart)
            parts.append(Part(headers: headers, body: Array(data[bodyStart..<next])))
            i = next + 2
        }
        return parts
    }

    private static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) throws -> Int {
        guard needle.count <= hay.count else { throw Malformed() }
        var i = from
        while i + needle.count <= hay.count {
            if hay[i] == needle[0] && Array(hay[i..<i + needle.count]) == needle { return i }
            i += 1
        }
        throw Malformed()
    }
}

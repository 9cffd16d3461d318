import Foundation
import SkyliftHashing
import SkyliftCore
import Testing

/// tus 1.0.0 driven with curl, status by status.
@Suite struct TusTests {
    static let tus = ["-H", "Tus-Resumable: 1.0.0"]
    static let octets = ["-H", "Content-Type: application/offset+octet-stream"]

    static func metadata(_ pairs: [(String, String)]) -> [String] {
        ["-H", "Upload-Metadata: " + pairs.map { "\($0.0) \(Data($0.1.utf8).base64EncodedString())" }.joined(separator: ",")]
    }

    /// Creates an upload and returns its path (`/uploads/<id>`).
    static func create(_ f: ServerFixture, folder: String = "/dav/inbox/", length: Int?, name: String = "clip.bin",
                       relativePath: String? = nil) throws -> String {
        let lengthArgs = length.map { ["-H", "Upload-Length: \($0)"] } ?? ["-H", "Upload-Defer-Length: 1"]
        let r = try Curl.run(["-X", "POST"] + tus + lengthArgs + metadata([("filename", name)] + (relativePath.map { [("relativePath", $0)] } ?? [])) + [f.url(folder)])
        #expect(r.status == 201, "create: \(r.status) \(r.text)")
        let location = try #require(r.header("Location"))
        #expect(location.hasPrefix("/uploads/") && location.count == "/uploads/".count + 32)
        #expect(r.header("Tus-Resumable") == "1.0.0")
        return location
    }

    static func patch(_ f: ServerFixture, _ location: String, offset: Int, _ bytes: [UInt8], extra: [String] = []) throws -> CurlResult {
        let body = try tempFile(bytes)
        defer { try? FileManager.default.removeItem(at: body) }
        return try Curl.run(["-X", "PATCH"] + tus + octets + ["-H", "Upload-Offset: \(offset)", "--data-binary", "@\(body.path)"]
                            + extra + [f.url(location)])
    }

    static func offset(_ f: ServerFixture, _ location: String) throws -> Int? {
        let r = try Curl.run(["-I"] + tus + [f.url(location)])
        return r.header("Upload-Offset").flatMap { Int($0) }
    }

    /// An upload is private while unfinished (0600 in the uploads folder), but in the tree it has the mode a PUT
    /// gives (0644 less the umask), so another program serving the folder can read it.
    @Test func aTusUploadLandsWithThePutMode() throws {
        let f = try ServerFixture()
        let body = randomBytes(5000)
        let loc = try Self.create(f, folder: "/dav/inbox/", length: body.count, name: "tus.bin")
        #expect(try Self.patch(f, loc, offset: 0, body).status == 204)
        let put = try tempFile(body)
        defer { try? FileManager.default.removeItem(at: put) }
        #expect(try Curl.run(["-T", put.path, f.url("/dav/inbox/put.bin")]).status == 201)
        let mode = { (name: String) in
            ((try? FileManager.default.attributesOfItem(atPath: f.file("inbox/" + name).path)[.posixPermissions]) as? NSNumber)?.intValue
        }
        #expect(mode("tus.bin") != nil && mode("tus.bin") == mode("put.bin"), "tus \(String(mode("tus.bin") ?? 0, radix: 8)), put \(String(mode("put.bin") ?? 0, radix: 8))")
        // A private data file would be 0600 whatever the umask; a PUT's is 0644 less it.
        #expect((mode("tus.bin") ?? 0) & 0o600 == 0o600 && mode("tus.bin") != 0o600 || mode("put.bin") == 0o600)
    }

    @Test func optionsAdvertiseTusAndDAV() throws {
        let f = try ServerFixture()
        for path in ["/uploads/", "/dav/"] {
            let r = try Curl.run(["-X", "OPTIONS", f.url(path)])
            #expect([200, 204].contains(r.status))
            #expect(r.header("Tus-Version") == "1.0.0")
            #expect(r.header("Tus-Extension")?.components(separatedBy: ",").sorted() ==
                    ["block-checksum", "checksum", "concatenation", "creation", "creation-defer-length", "creation-with-upload", "expiration", "termination"])
            #expect(r.header("Tus-Block-Size") == "4194304")
            #expect(r.header("Tus-Max-Size") == "\(f.maxSize)")
            #expect(r.header("Tus-Checksum-Algorithm") == "sha1,sha256")
        }
        #expect(try Curl.run(["-X", "OPTIONS", f.url("/dav/")]).header("DAV")?.contains("2") == true)
    }

    @Test func fullUploadWithChecksumsLandsAtomically() throws {
        let f = try ServerFixture()
        let data = randomBytes(300_000)
        let loc = try Self.create(f, length: data.count, relativePath: "trip/day1")
        let head = try Curl.run(["-I"] + Self.tus + [f.url(loc)])
        #expect(head.status == 200)
        #expect(head.header("Upload-Offset") == "0" && head.header("Upload-Length") == "\(data.count)")
        #expect(head.header("Cache-Control") == "no-store")
        #expect(head.header("Upload-Expires").flatMap(HTTPDate.parse) != nil)
        // Wrong type, wrong offset, wrong version, bad checksum: each refused, nothing counted.
        let body = try tempFile(Array(data[0..<1000]))
        defer { try? FileManager.default.removeItem(at: body) }
        let noType = try Curl.run(["-X", "PATCH"] + Self.tus + ["-H", "Content-Type: application/octet-stream",
                                   "-H", "Upload-Offset: 0", "--data-binary", "@\(body.path)", f.url(loc)])
        #expect(noType.status == 415)
        #expect(try Self.patch(f, loc, offset: 5, Array(data[5..<100])).status == 409)
        let v = try Curl.run(["-X", "PATCH", "-H", "Tus-Resumable: 0.2.2"] + Self.octets + ["-H", "Upload-Offset: 0",
                              "--data-binary", "@\(body.path)", f.url(loc)])
        #expect(v.status == 412 && v.header("Tus-Version") == "1.0.0")
        #expect(try Curl.run(["-X", "PATCH"] + Self.octets + ["-H", "Upload-Offset: 0", f.url(loc)]).status == 412)
        let wrongSum = "sha1 " + Digest.hash(.sha1, [1, 2, 3]).base64String
        #expect(try Self.patch(f, loc, offset: 0, Array(data[0..<100_000]), extra: ["-H", "Upload-Checksum: \(wrongSum)"]).status == 460)
        #expect(try Self.offset(f, loc) == 0)
        #expect(try Self.patch(f, loc, offset: 0, [1], extra: ["-H", "Upload-Checksum: md5 AAAA"]).status == 400)
        // Good chunks, sha1 then sha256 then none.
        let c1 = Array(data[0..<100_000]), c2 = Array(data[100_000..<250_000]), c3 = Array(data[250_000...])
        let r1 = try Self.patch(f, loc, offset: 0, c1, extra: ["-H", "Upload-Checksum: sha1 \(Digest.hash(.sha1, c1).base64String)"])
        #expect(r1.status == 204 && r1.header("Upload-Offset") == "100000" && r1.header("Upload-Expires") != nil)
        let r2 = try Self.patch(f, loc, offset: 100_000, c2, extra: ["-H", "Upload-Checksum: sha256 \(Digest.hash(.sha256, c2).base64String)"])
        #expect(r2.status == 204 && r2.header("Upload-Offset") == "250000")
        #expect(!FileManager.default.fileExists(atPath: f.file("inbox/trip/day1/clip.bin").path))
        let r3 = try Self.patch(f, loc, offset: 250_000, c3)
        #expect(r3.status == 204 && r3.header("Upload-Offset") == "\(data.count)")
        #expect(try Array(Data(contentsOf: f.file("inbox/trip/day1/clip.bin"))) == data)
        #expect(try Curl.run(["-I"] + Self.tus + [f.url(loc)]).status == 404)
        // Upload state never shows through /dav/.
        #expect(!(try Curl.run([f.url("/dav/")]).text.contains("skylift")))
    }

    @Test func creationWithUploadDeferredLengthAndOverflow() throws {
        let f = try ServerFixture(maxSize: 1_000_000)
        let data = randomBytes(5000)
        let body = try tempFile(data)
        defer { try? FileManager.default.removeItem(at: body) }
        let r = try Curl.run(["-X", "POST"] + Self.tus + Self.octets + ["-H", "Upload-Length: 5000"]
                             + Self.metadata([("filename", "a.bin")]) + ["--data-binary", "@\(body.path)", f.url("/dav/")])
        #expect(r.status == 201 && r.header("Upload-Offset") == "5000" && r.header("Location") != nil)
        #expect(try Array(Data(contentsOf: f.file("a.bin"))) == data)

        let loc = try Self.create(f, length: nil, name: "later.bin")
        let head = try Curl.run(["-I"] + Self.tus + [f.url(loc)])
        #expect(head.header("Upload-Defer-Length") == "1" && head.header("Upload-Length") == nil)
        #expect(try Self.patch(f, loc, offset: 0, Array(data[0..<2000])).status == 204)
        let last = try Self.patch(f, loc, offset: 2000, Array(data[2000...]), extra: ["-H", "Upload-Length: 5000"])
        #expect(last.status == 204, "\(last.text)")
        #expect(try Array(Data(contentsOf: f.file("inbox/later.bin"))) == data)

        let tooBig = try Curl.run(["-X", "POST"] + Self.tus + ["-H", "Upload-Length: 1000001"] + Self.metadata([("filename", "x")]) + [f.url("/dav/")])
        #expect(tooBig.status == 413)
        let small = try Self.create(f, length: 10, name: "small.bin")
        #expect(try Self.patch(f, small, offset: 0, Array(repeating: 7, count: 11)).status == 413)
        #expect(try Self.offset(f, small) == 0)
        // Missing filename, bad length, traversal in metadata.
        #expect(try Curl.run(["-X", "POST"] + Self.tus + ["-H", "Upload-Length: 3", f.url("/dav/")]).status == 400)
        #expect(try Curl.run(["-X", "POST"] + Self.tus + ["-H", "Upload-Length: x"] + Self.metadata([("filename", "x")]) + [f.url("/dav/")]).status == 400)
        let sneaky = try Curl.run(["-X", "POST"] + Self.tus + ["-H", "Upload-Length: 3"]
                                  + Self.metadata([("filename", "x"), ("relativePath", "../../etc")]) + [f.url("/dav/")])
        #expect(sneaky.status == 403)
        #expect(try Curl.run(["-X", "POST"] + Self.tus + ["-H", "Upload-Length: 3"] + Self.metadata([("filename", "../x")]) + [f.url("/dav/")]).status == 403)
        #expect(try Curl.run(["-X", "POST", "-H", "Upload-Length: 3"] + Self.metadata([("filename", "x")]) + [f.url("/dav/")]).status == 412)
    }

    @Test func terminationAndExpiry() throws {
        let f = try ServerFixture(expiry: 1)
        let loc = try Self.create(f, length: 100)
        #expect(try Curl.run(["-X", "DELETE"] + Self.tus + [f.url(loc)]).status == 204)
        #expect(try Curl.run(["-I"] + Self.tus + [f.url(loc)]).status == 404)
        let old = try Self.create(f, length: 100)
        #expect(try Self.patch(f, old, offset: 0, [1, 2, 3]).status == 204)
        Thread.sleep(forTimeInterval: 2.2)
        #expect([404, 410].contains(try Curl.run(["-I"] + Self.tus + [f.url(old)]).status))
        let files = try FileManager.default.contentsOfDirectory(atPath: f.file(".skylift-uploads").path)
        #expect(files.isEmpty)
        #expect(try Curl.run(["-I"] + Self.tus + [f.url("/uploads/nothex")]).status == 404)
    }

    @Test func resumesAfterServerRestart() throws {
        let f = try ServerFixture()
        let data = randomBytes(200_000)
        let loc = try Self.create(f, length: data.count, name: "resume.bin")
        #expect(try Self.patch(f, loc, offset: 0, Array(data[0..<120_000])).status == 204)
        f.stop()
        try f.start()
        #expect(try Self.offset(f, loc) == 120_000)
        #expect(try Self.patch(f, loc, offset: 120_000, Array(data[120_000...])).status == 204)
        #expect(try Array(Data(contentsOf: f.file("inbox/resume.bin"))) == data)
    }

    @Test func unverifiedChunkLeftByACrashIsRolledBackOnStart() throws {
        let f = try ServerFixture()
        let loc = try Self.create(f, length: 1000, name: "crash.bin")
        #expect(try Self.patch(f, loc, offset: 0, Array(repeating: 1, count: 400)).status == 204)
        f.stop()
        // What a kill -9 in the middle of a checksummed PATCH leaves behind: the marker and unverified bytes.
        let id = String(loc.dropFirst("/uploads/".count))
        let state = f.file(".skylift-uploads")
        try Data("400".utf8).write(to: state.appendingPathComponent("\(id).pending"))
        let handle = try FileHandle(forWritingTo: state.appendingPathComponent("\(id).data"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 9, count: 300))
        try handle.close()
        try f.start()
        #expect(try Self.offset(f, loc) == 400)
    }
}

import Foundation
import SkyliftHashing
import SkyliftCore
import Testing

/// tus `concatenation` driven with curl: partial uploads, the final upload that joins them (byte-equal, with the
/// digest record served as `Repr-Digest`), and every hostile final list refused with nothing created.
@Suite struct TusConcatTests {
    static let tus = TusTests.tus

    /// Creates a partial upload of `length` bytes (optionally with `block-checksum`) and returns its path.
    static func partial(_ f: ServerFixture, length: Int, extra: [String] = []) throws -> String {
        let r = try Curl.run(["-X", "POST"] + tus + ["-H", "Upload-Length: \(length)", "-H", "Upload-Concat: partial"] + extra
                             + [f.url("/dav/inbox/")])
        #expect(r.status == 201, "partial: \(r.status) \(r.text)")
        return try #require(r.header("Location"))
    }

    /// A finished partial upload holding `bytes`.
    static func finishedPartial(_ f: ServerFixture, _ bytes: [UInt8]) throws -> String {
        let loc = try partial(f, length: bytes.count)
        let r = try TusTests.patch(f, loc, offset: 0, bytes)
        #expect(r.status == 204 && r.header("Upload-Offset") == "\(bytes.count)", "\(r.status) \(r.text)")
        return loc
    }

    /// POSTs a final upload joining `list` (the header's text after `final;`) as `inbox/<name>`.
    static func final(_ f: ServerFixture, _ list: String, name: String = "joined.bin", extra: [String] = []) throws -> CurlResult {
        try Curl.run(["-X", "POST"] + tus + ["-H", "Upload-Concat: final;\(list)"] + TusTests.metadata([("filename", name)]) + extra
                     + [f.url("/dav/inbox/")])
    }

    static func uploadIDs(_ f: ServerFixture) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: f.file(".skylift-uploads").path)) ?? []
        return Set(names.filter { $0.hasSuffix(".info") })
    }

    @Test func partialsJoinInOrderIntoTheFinalFileWithItsDigest() throws {
        let f = try ServerFixture()
        let pieces = [randomBytes(300_000), randomBytes(1), randomBytes(5 << 20)]
        // The last one with block-checksum: finished only once its blocks are confirmed.
        let a = try Self.finishedPartial(f, pieces[0]), b = try Self.finishedPartial(f, pieces[1])
        let c = try Self.partial(f, length: pieces[2].count, extra: ["-H", "Upload-Block-Checksum: sha256"])
        #expect(try TusTests.patch(f, c, offset: 0, pieces[2]).status == 204)
        let early = try Self.final(f, "\(a) \(b) \(c)")
        #expect(early.status == 400 && early.text.contains("not finished"), "\(early.status) \(early.text)")
        let digests = stride(from: 0, to: pieces[2].count, by: 4 << 20).map {
            Digest.hash(.sha256, Array(pieces[2][$0 ..< min($0 + (4 << 20), pieces[2].count)])).base64String
        }
        let confirm = try Curl.run(["-X", "PATCH"] + Self.tus + TusTests.octets + ["-H", "Upload-Offset: \(pieces[2].count)",
                                    "-H", "Upload-Block-Digests: 0 " + digests.joined(separator: ","), f.url(c)])
        #expect(confirm.status == 204, "\(confirm.status) \(confirm.text)")
        let head = try Curl.run(["-I"] + Self.tus + [f.url(a)])
        #expect(head.header("Upload-Concat") == "partial" && head.header("Upload-Offset") == "300000")
        #expect(!FileManager.default.fileExists(atPath: f.file("inbox/joined.bin").path), "a partial upload lands nowhere")

        // One URL absolute, as tus clients send them.
        let r = try Self.final(f, "\(a) \(f.url(b))  \(c)")
        #expect(r.status == 201, "\(r.status) \(r.text)")
        let final = try #require(r.header("Location"))
        let all = pieces.flatMap { $0 }
        #expect(try Data(contentsOf: f.file("inbox/joined.bin")) == Data(all))
        let served = try Curl.run(["-I", f.url("/dav/inbox/joined.bin")])
        #expect(served.header("Repr-Digest") == "sha-256=:\(Digest.hash(.sha256, all).base64String):")
        let finalHead = try Curl.run(["-I"] + Self.tus + [f.url(final)])
        #expect(finalHead.status == 200)
        #expect(finalHead.header("Upload-Concat") == "final;\(a) \(b) \(c)")
        #expect(finalHead.header("Upload-Offset") == "\(all.count)" && finalHead.header("Upload-Length") == "\(all.count)")
        #expect(try TusTests.patch(f, final, offset: all.count, [1]).status == 403)
        // The join consumed the partial uploads: a second final upload of them is refused, and creates nothing.
        for p in [a, b, c] { #expect(try Curl.run(["-I"] + Self.tus + [f.url(p)]).status == 404) }
        let again = try Self.final(f, "\(a) \(b) \(c)", name: "twice.bin")
        #expect(again.status == 400 && again.text.contains("not a partial upload"), "\(again.status) \(again.text)")
        #expect(!FileManager.default.fileExists(atPath: f.file("inbox/twice.bin").path))
    }

    @Test func hostileFinalListsAreRefusedAndCreateNothing() throws {
        let f = try ServerFixture(maxSize: 1 << 20)
        let a = try Self.finishedPartial(f, randomBytes(1000)), b = try Self.finishedPartial(f, randomBytes(2000))
        let unfinished = try Self.partial(f, length: 10)
        let plain = try TusTests.create(f, length: 5)
        let big1 = try Self.finishedPartial(f, randomBytes(600_000)), big2 = try Self.finishedPartial(f, randomBytes(600_000))
        let before = Self.uploadIDs(f)
        let missing = "/uploads/" + String(repeating: "ab", count: 16)
        let cases: [(list: String, status: Int, says: String)] = [
            ("", 400, "names no partial upload"),
            ("/uploads/zzz", 400, "not an upload URL"),
            ("/dav/inbox/x.bin", 400, "not an upload URL"),
            ("\(f.url(a))?x=1", 400, "not an upload URL"),
            ("ftp://h\(a)", 400, "not an upload URL"),
            ("\(a)/../\(b.dropFirst())", 400, "not an upload URL"),
            ("\(a) \(b) \(a)", 400, "named twice"),
            ("\(a) \(f.url(a))", 400, "named twice"),
            ("\(a) \(unfinished)", 400, "not finished"),
            ("\(missing)", 400, "not a partial upload"),
            ("\(plain)", 400, "not a partial upload"),
            ("\(big1) \(big2)", 413, "Tus-Max-Size"),
        ]
        for c in cases {
            let r = try Self.final(f, c.list)
            #expect(r.status == c.status && r.text.contains(c.says), "\(c.list): \(r.status) \(r.text)")
            #expect(r.header("Tus-Resumable") == "1.0.0")
        }
        let withLength = try Self.final(f, "\(a) \(b)", extra: ["-H", "Upload-Length: 3000"])
        #expect(withLength.status == 400, "\(withLength.text)")
        let malformed = try Curl.run(["-X", "POST"] + Self.tus + ["-H", "Upload-Concat: everything", "-H", "Upload-Length: 1"]
                                     + TusTests.metadata([("filename", "m.bin")]) + [f.url("/dav/inbox/")])
        #expect(malformed.status == 400)
        // The same path rules as any creation.
        let named = try Curl.run(["-X", "POST"] + Self.tus + ["-H", "Upload-Concat: final;\(a) \(b)"]
                                 + TusTests.metadata([("filename", "../x")]) + [f.url("/dav/inbox/")])
        #expect(named.status == 403, "\(named.status) \(named.text)")
        // Nothing created, nothing consumed: the same uploads, no file, and the partial uploads still join.
        #expect(Self.uploadIDs(f) == before)
        #expect(!FileManager.default.fileExists(atPath: f.file("inbox/joined.bin").path))
        #expect(try Self.final(f, "\(a) \(b)").status == 201)
    }

    @Test func aJoinCutByACrashIsSweptAndItsPartialsStay() throws {
        let f = try ServerFixture()
        let bytes = randomBytes(4000)
        let a = try Self.finishedPartial(f, bytes)
        // What a server killed mid-join leaves: a `.joining` file no request holds.
        let stale = f.file(".skylift-uploads/" + String(repeating: "cd", count: 16) + ".joining")
        try Data(bytes.prefix(100)).write(to: stale)
        _ = try Self.partial(f, length: 1) // any creation sweeps
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(try Self.final(f, a).status == 201)
        #expect(try Data(contentsOf: f.file("inbox/joined.bin")) == Data(bytes))
    }
}

import Foundation
import SkyliftHashing
import Testing
@testable import SkyliftStorageServer

/// Digests recorded at write time (RFC 9530 `Repr-Digest`, PROPFIND properties), driven with curl against
/// a real server over real files.
@Suite struct StoredDigestTests {
    static func reprDigest(_ bytes: [UInt8]) -> String { "sha-256=:\(Digest.hash(.sha256, bytes).base64String):" }

    static func head(_ f: ServerFixture, _ path: String, _ extra: [String] = []) throws -> CurlResult {
        try Curl.run(["-I"] + extra + [f.url(path)])
    }

    static func put(_ f: ServerFixture, _ path: String, _ bytes: [UInt8]) throws {
        let body = try tempFile(bytes)
        defer { try? FileManager.default.removeItem(at: body) }
        let r = try Curl.run(["-X", "PUT", "--data-binary", "@\(body.path)", f.url(path)])
        #expect(r.status == 201 || r.status == 204, "PUT \(path): \(r.status)")
    }

    static func propfind(_ f: ServerFixture, _ path: String) throws -> String {
        let body = """
        <?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" xmlns:s="urn:skylift">
        <d:prop><d:getcontentlength/><oc:checksums/><s:repr-digest/></d:prop></d:propfind>
        """
        let r = try Curl.run(["-X", "PROPFIND", "-H", "Depth: 0", "-H", "Content-Type: application/xml", "--data-binary", body, f.url(path)])
        #expect(r.status == 207)
        return r.text
    }

    @Test func putRecordsTheDigestServedOnGetHeadRangesAndPropfind() throws {
        let f = try ServerFixture(digests: [.sha256, .sha1, .md5])
        let data = randomBytes(700_000)
        try Self.put(f, "/dav/a.bin", data)
        let head = try Self.head(f, "/dav/a.bin")
        #expect(head.header("Repr-Digest") == Self.reprDigest(data))
        let get = try Curl.run([f.url("/dav/a.bin")])
        #expect(get.body == data && get.header("Repr-Digest") == Self.reprDigest(data))
        // The digest is of the whole representation, so a range answer carries it too.
        let range = try Curl.run(["-H", "Range: bytes=10-19", f.url("/dav/a.bin")])
        #expect(range.status == 206 && range.header("Repr-Digest") == Self.reprDigest(data))
        // Want-Repr-Digest: sha-256 refused with 0 → none; only unknown algorithms asked for → sha-256 anyway;
        // a malformed field is ignored.
        #expect(try Self.head(f, "/dav/a.bin", ["-H", "Want-Repr-Digest: sha-256=0, sha-512=3"]).header("Repr-Digest") == nil)
        #expect(try Self.head(f, "/dav/a.bin", ["-H", "Want-Repr-Digest: sha-512=10, unixsum=2"]).header("Repr-Digest") == Self.reprDigest(data))
        #expect(try Self.head(f, "/dav/a.bin", ["-H", "Want-Repr-Digest: SHA-256=0;;;"]).header("Repr-Digest") == Self.reprDigest(data))
        let xml = try Self.propfind(f, "/dav/a.bin")
        #expect(xml.contains("SHA1:\(Digest.hash(.sha1, data).hexString)"))
        #expect(xml.contains("MD5:\(Digest.hash(.md5, data).hexString)"))
        #expect(xml.contains("SHA256:\(Digest.hash(.sha256, data).hexString)"))
        #expect(xml.contains(">\(Self.reprDigest(data))</"))
    }

    @Test func theDigestSurvivesTusCopyMoveAndARestart() throws {
        let f = try ServerFixture()
        let viaPut = randomBytes(300_000), viaTus = randomBytes(250_000)
        try Self.put(f, "/dav/put.bin", viaPut)
        let location = try TusTests.create(f, folder: "/dav/", length: viaTus.count, name: "tus.bin")
        #expect(try TusTests.patch(f, location, offset: 0, Array(viaTus[..<100_000])).status == 204)
        #expect(try TusTests.patch(f, location, offset: 100_000, Array(viaTus[100_000...])).status == 204)
        #expect(try Self.head(f, "/dav/tus.bin").header("Repr-Digest") == Self.reprDigest(viaTus))
        #expect(try Curl.run(["-X", "MKCOL", f.url("/dav/dir/")]).status == 201)
        let copy = try Curl.run(["-X", "COPY", "-H", "Destination: \(f.url("/dav/dir/copy.bin"))", f.url("/dav/put.bin")])
        #expect(copy.status == 201)
        let move = try Curl.run(["-X", "MOVE", "-H", "Destination: \(f.url("/dav/dir/moved.bin"))", f.url("/dav/tus.bin")])
        #expect(move.status == 201)
        // A folder copied and then moved whole carries its members' records.
        #expect(try Curl.run(["-X", "COPY", "-H", "Destination: \(f.url("/dav/dir2/"))", f.url("/dav/dir/")]).status == 201)
        #expect(try Curl.run(["-X", "MOVE", "-H", "Destination: \(f.url("/dav/dir3/"))", f.url("/dav/dir2/")]).status == 201)
        f.stop()
        try f.start()
        let expected = ["/dav/put.bin": viaPut, "/dav/dir/copy.bin": viaPut, "/dav/dir/moved.bin": viaTus,
                        "/dav/dir3/copy.bin": viaPut, "/dav/dir3/moved.bin": viaTus]
        for (path, bytes) in expected {
            #expect(try Self.head(f, path).header("Repr-Digest") == Self.reprDigest(bytes), "\(path)")
        }
    }

    @Test func aFileChangedBehindTheServersBackLosesItsDigest() throws {
        let f = try ServerFixture()
        let data = randomBytes(100_000)
        try Self.put(f, "/dav/inplace.bin", data)
        try Self.put(f, "/dav/replaced.bin", data)
        // Same size, rewritten in place (mtime moves on): the old record no longer describes it.
        let handle = try FileHandle(forWritingTo: f.file("inplace.bin"))
        try handle.seek(toOffset: 500)
        handle.write(Data([data[500] ^ 0xFF]))
        try handle.close()
        // The kernel's clock may not have ticked since the PUT: move the mtime on as a later write would.
        let written = try #require(try FileManager.default.attributesOfItem(atPath: f.file("inplace.bin").path)[.modificationDate] as? Date)
        try FileManager.default.setAttributes([.modificationDate: written.addingTimeInterval(1)], ofItemAtPath: f.file("inplace.bin").path)
        // Replaced by another file (new inode, no record).
        let other = f.scratch.appendingPathComponent("other")
        try Data(data).write(to: other)
        #expect(rename(other.path, f.file("replaced.bin").path) == 0)
        for path in ["/dav/inplace.bin", "/dav/replaced.bin"] {
            let head = try Self.head(f, path)
            #expect(head.status == 200)
            #expect(head.header("Repr-Digest") == nil, "\(path) still served with its old digest")
            #expect(!(try Self.propfind(f, path)).contains("SHA256:"))
        }
        // Writing it through the server again records it again.
        try Self.put(f, "/dav/inplace.bin", data)
        #expect(try Self.head(f, "/dav/inplace.bin").header("Repr-Digest") == Self.reprDigest(data))
    }
}

/// `rclone check` (Debian's rclone, webdav backend with vendor owncloud) reads `oc:checksums` and compares
/// hashes, not just sizes.
@Suite struct RcloneHashCheckTests {
    /// vendor owncloud: rclone asks for oc:checksums and compares SHA-1 or MD5.
    static func rclone(_ f: ServerFixture, _ args: [String]) throws -> (out: String, status: Int32) {
        try RcloneTests.rclone(f, args, vendor: "owncloud")
    }

    @Test func rcloneCheckComparesHashes() throws {
        let f = try ServerFixture(digests: [.sha256, .sha1, .md5])
        let local = f.scratch.appendingPathComponent("local")
        let files = ["a.bin": randomBytes(400_000), "sub/b.txt": Array("hello digests".utf8)]
        for (name, bytes) in files {
            let u = local.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: u)
        }
        let up = try Self.rclone(f, ["copy", local.path, "sky:backup"])
        #expect(up.status == 0, Comment(rawValue: up.out))
        let same = try Self.rclone(f, ["check", local.path, "sky:backup"])
        #expect(same.status == 0, Comment(rawValue: same.out))
        #expect(!same.out.contains("No common hash") && !same.out.contains("could not be checked"), Comment(rawValue: same.out))
        #expect(same.out.contains("2 matching files"), Comment(rawValue: same.out))
        // Same size, same name, one byte different locally: only a hash comparison can see it.
        var changed = try #require(files["a.bin"])
        changed[1234] ^= 0x01
        try Data(changed).write(to: local.appendingPathComponent("a.bin"))
        let differs = try Self.rclone(f, ["check", local.path, "sky:backup"])
        #expect(differs.status != 0, Comment(rawValue: differs.out))
        #expect(differs.out.contains("1 differences found"), Comment(rawValue: differs.out))
    }
}

/// The record format itself: strict, because anyone who can write the tree can write the attribute.
@Suite struct DigestRecordTests {
    static let sha = String(repeating: "ab", count: 32)

    @Test func parsesWhatItEncodesAndRefusesTheRest() throws {
        let text = "skylift-digest/1 size=5 mtime=-3 inode=42 sha256=\(Self.sha) md5=\(String(repeating: "0f", count: 16))"
        let record = try #require(DigestRecord(encoded: Array(text.utf8)))
        #expect(record.size == 5 && record.mtime == FileTime(totalNanoseconds: -3) && record.inode == 42 && record.sha1 == nil && record.md5?.count == 16)
        #expect(DigestRecord(encoded: record.encoded) == record)
        for bad in ["skylift-digest/2 size=5 mtime=1 inode=1 sha256=\(Self.sha)",
                    "skylift-digest/1 size=5 mtime=1 inode=1",
                    "skylift-digest/1 size=-5 mtime=1 inode=1 sha256=\(Self.sha)",
                    "skylift-digest/1 size=99999999999999999999 mtime=1 inode=1 sha256=\(Self.sha)",
                    "skylift-digest/1 size=5 size=6 mtime=1 inode=1 sha256=\(Self.sha)",
                    "skylift-digest/1 size=5 mtime=1 inode=1 sha256=\(Self.sha)00",
                    "skylift-digest/1 size=5 mtime=1 inode=1 sha256=\(Self.sha) extra=1",
                    "skylift-digest/1 size=+5 mtime=1 inode=1 sha256=\(Self.sha)",
                    "skylift-digest/1  size=5 mtime=1 inode=1 sha256=\(Self.sha)"] {
            #expect(DigestRecord(encoded: Array(bad.utf8)) == nil, "\(bad)")
        }
        #expect(DigestRecord(encoded: [UInt8](repeating: 0x41, count: 600)) == nil)
    }
}

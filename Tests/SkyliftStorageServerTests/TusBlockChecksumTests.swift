import Foundation
import SkyliftHashing
import SkyliftCore
import Testing

/// `block-checksum` with CRC-32C, the checksum the client asks for when offered, driven with curl against the real
/// server; and the whole file's SHA-256 record, computed as the bytes arrive, right in every way an upload can
/// go: in one body, in two, across a restart, with a block sent again.
@Suite struct TusBlockChecksumTests {
    static let block = TusBlockTests.block
    static let tus = TusTests.tus

    static func served(_ f: ServerFixture, _ name: String) throws -> String? {
        try StoredDigestTests.head(f, "/dav/inbox/" + name).header("Repr-Digest")
    }

    @Test func crc32cBlocksAreOfferedConfirmedAndTheFileKeepsItsDigest() throws {
        let f = try ServerFixture()
        let options = try Curl.run(["-X", "OPTIONS", f.url("/dav/")])
        #expect(options.header("Tus-Block-Checksum-Algorithm") == "crc32c,sha256")
        let bytes = try TusBlockTests.urandom(2 * Self.block + 4321)
        let location = try TusBlockTests.create(f, length: bytes.count, name: "crc.bin", checksum: .crc32c)
        #expect(try TusTests.patch(f, location, offset: 0, bytes).status == 204)
        #expect(try TusBlockTests.head(f, location).header("Upload-Block-Checksum") == "crc32c")
        // SHA-256-sized checksums are malformed for a CRC-32C upload.
        #expect(try TusBlockTests.confirm(f, location, offset: bytes.count, TusBlockTests.digests(bytes)).status == 400)
        let done = try TusBlockTests.confirm(f, location, offset: bytes.count, TusBlockTests.digests(bytes, .crc32c))
        #expect(done.status == 204, "\(done.status) \(done.text)")
        #expect(try Data(contentsOf: f.file("inbox/crc.bin")) == Data(bytes))
        #expect(try Self.served(f, "crc.bin") == StoredDigestTests.reprDigest(bytes))
    }

    @Test func unknownBlockChecksumsAreRefused() throws {
        let f = try ServerFixture()
        let r = try Curl.run(["-X", "POST"] + Self.tus + ["-H", "Upload-Length: 10", "-H", "Upload-Block-Checksum: md5"]
                             + TusTests.metadata([("filename", "x.bin")]) + [f.url("/dav/inbox/")])
        #expect(r.status == 400 && r.text.contains("crc32c or sha256"), "\(r.status) \(r.text)")
        // CRC-32C checks a block sent again, never a plain upload's PATCH.
        let plain = try TusTests.create(f, length: 4)
        let sum = "crc32c " + Data(CRC32C().bytes).base64EncodedString()
        #expect(try TusTests.patch(f, plain, offset: 0, [1, 2, 3, 4], extra: ["-H", "Upload-Checksum: \(sum)"]).status == 400)
    }

    /// The running digest saw the damaged bytes; once the block is sent again the record must not be theirs.
    @Test func aRepairedBlockLeavesTheDigestOfTheRightBytes() throws {
        let f = try ServerFixture()
        let bytes = try TusBlockTests.urandom(3 * Self.block - 1000)
        var damaged = bytes
        damaged[Self.block + 777] ^= 0x01
        let location = try TusBlockTests.create(f, length: bytes.count, name: "fix.bin", checksum: .crc32c)
        #expect(try TusTests.patch(f, location, offset: 0, damaged).status == 204)
        let mismatch = try TusBlockTests.confirm(f, location, offset: bytes.count, TusBlockTests.digests(bytes, .crc32c))
        #expect(mismatch.status == 460 && mismatch.header("Upload-Bad-Blocks") == "1")
        let slice = bytes[Self.block ..< 2 * Self.block]
        let sha = "sha256 " + Data(TusBlockTests.sum(slice, .sha256)).base64EncodedString()
        let crc = "crc32c " + Data(TusBlockTests.sum(slice, .crc32c)).base64EncodedString()
        let wrong = "crc32c " + Data(TusBlockTests.sum(damaged[Self.block ..< 2 * Self.block], .crc32c)).base64EncodedString()
        #expect(try TusTests.patch(f, location, offset: Self.block, Array(slice), extra: ["-H", "Upload-Checksum: \(sha)"]).status == 400,
                "a block goes again with the upload's own checksum")
        #expect(try TusTests.patch(f, location, offset: Self.block, Array(slice), extra: ["-H", "Upload-Checksum: \(wrong)"]).status == 460)
        let repaired = try TusTests.patch(f, location, offset: Self.block, Array(slice), extra: ["-H", "Upload-Checksum: \(crc)"])
        #expect(repaired.status == 204, "\(repaired.status) \(repaired.text)")
        #expect(try Data(contentsOf: f.file("inbox/fix.bin")) == Data(bytes))
        #expect(try Self.served(f, "fix.bin") == StoredDigestTests.reprDigest(bytes))
    }

    /// Two bodies meeting at a block boundary carry the running digest on; a restart before the confirmation
    /// loses it, and completion reads the file instead: the record is right either way.
    @Test func theRecordIsRightAcrossBodiesAndARestart() throws {
        let f = try ServerFixture()
        for (name, restart) in [("two.bin", false), ("restart.bin", true)] {
            let bytes = try TusBlockTests.urandom(2 * Self.block + 99)
            let location = try TusBlockTests.create(f, length: bytes.count, name: name, checksum: .crc32c)
            #expect(try TusTests.patch(f, location, offset: 0, Array(bytes[..<Self.block])).status == 204)
            #expect(try TusTests.patch(f, location, offset: Self.block, Array(bytes[Self.block...])).status == 204)
            if restart {
                f.stop()
                try f.start()
            }
            let done = try TusBlockTests.confirm(f, location, offset: bytes.count, TusBlockTests.digests(bytes, .crc32c))
            #expect(done.status == 204, "\(name): \(done.status) \(done.text)")
            #expect(try Self.served(f, name) == StoredDigestTests.reprDigest(bytes), "\(name)")
        }
    }
}

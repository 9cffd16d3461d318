import Foundation
import SkyliftHashing
import SkyliftCore
import Testing
import TestPrograms

/// tus `block-checksum` driven with curl against the real server: data kept block by block as it arrives, the
/// file moved into place only once every block was confirmed, a bad block named and sent again alone.
@Suite struct TusBlockTests {
    static let block = 4 << 20
    static let tus = TusTests.tus
    static let octets = TusTests.octets

    /// Creates a `block-checksum` upload of `length` bytes named `name` in /dav/inbox/.
    static func create(_ f: ServerFixture, length: Int, name: String, checksum: BlockChecksumAlgorithm = .sha256) throws -> String {
        let r = try Curl.run(["-X", "POST"] + tus + ["-H", "Upload-Length: \(length)", "-H", "Upload-Block-Checksum: \(checksum.rawValue)"]
                             + TusTests.metadata([("filename", name)]) + [f.url("/dav/inbox/")])
        #expect(r.status == 201, "create: \(r.status) \(r.text)")
        #expect(r.header("Upload-Block-Size") == String(block))
        #expect(r.header("Upload-Block-Checksum") == checksum.rawValue)
        return try #require(r.header("Location"))
    }

    /// The checksum of `bytes` with `algorithm`.
    static func sum(_ bytes: ArraySlice<UInt8>, _ algorithm: BlockChecksumAlgorithm) -> [UInt8] {
        var c = BlockChecksum(algorithm)
        Array(bytes).withUnsafeBytes { c.update($0) }
        return c.finalizeAndReset()
    }

    static func digests(_ bytes: [UInt8], from first: Int = 0, _ algorithm: BlockChecksumAlgorithm = .sha256) -> String {
        let blocks = stride(from: first * block, to: bytes.count, by: block).map { start in
            Data(sum(bytes[start ..< min(start + block, bytes.count)], algorithm)).base64EncodedString()
        }
        return "\(first) " + blocks.joined(separator: ",")
    }

    static func confirm(_ f: ServerFixture, _ location: String, offset: Int, _ value: String) throws -> CurlResult {
        try Curl.run(["-X", "PATCH"] + tus + octets + ["-H", "Upload-Offset: \(offset)", "-H", "Content-Length: 0",
                                                       "-H", "Upload-Block-Digests: \(value)", f.url(location)])
    }

    /// Random bytes from /dev/urandom (generating megabytes byte by byte is slow in a debug build).
    static func urandom(_ count: Int) throws -> [UInt8] {
        let h = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        defer { try? h.close() }
        return Array(h.readData(ofLength: count))
    }

    static func head(_ f: ServerFixture, _ location: String) throws -> CurlResult { try Curl.run(["-I"] + tus + [f.url(location)]) }

    @Test func fileLandsOnlyOnceEveryBlockIsConfirmed() throws {
        let f = try ServerFixture()
        let bytes = try Self.urandom(2 * Self.block + 12345)
        let location = try Self.create(f, length: bytes.count, name: "whole.bin")
        let sum = "sha256 " + Data(Digest.hash(.sha256, bytes)).base64EncodedString()
        #expect(try TusTests.patch(f, location, offset: 0, bytes, extra: ["-H", "Upload-Checksum: \(sum)"]).status == 400,
                "a checksum the server would not check is refused")
        let patched = try TusTests.patch(f, location, offset: 0, bytes)
        #expect(patched.status == 204 && patched.header("Upload-Offset") == String(bytes.count))
        #expect(!FileManager.default.fileExists(atPath: f.file("inbox/whole.bin").path), "moved into place unconfirmed")
        // An empty PATCH at the end keeps the short last block.
        #expect(try TusTests.patch(f, location, offset: bytes.count, []).header("Upload-Offset") == String(bytes.count))
        let h = try Self.head(f, location)
        #expect(h.header("Upload-Offset") == String(bytes.count) && h.header("Upload-Blocks-Confirmed") == "0")
        // Confirmations go in order, never past what arrived, and are checked for shape.
        #expect(try Self.confirm(f, location, offset: bytes.count, Self.digests(bytes, from: 1)).status == 409)
        #expect(try Self.confirm(f, location, offset: bytes.count, "0 not-base64").status == 400)
        let done = try Self.confirm(f, location, offset: bytes.count, Self.digests(bytes))
        #expect(done.status == 204, "\(done.status) \(done.text)")
        #expect(try Data(contentsOf: f.file("inbox/whole.bin")) == Data(bytes))
        #expect(try Self.head(f, location).status == 404)
    }

    @Test func aDamagedBlockIsNamedAndOnlyItIsSentAgain() throws {
        let f = try ServerFixture()
        let bytes = try Self.urandom(3 * Self.block - 1000)
        var damaged = bytes
        damaged[Self.block + 777] ^= 0x01
        let location = try Self.create(f, length: bytes.count, name: "flip.bin")
        #expect(try TusTests.patch(f, location, offset: 0, damaged).status == 204)
        let mismatch = try Self.confirm(f, location, offset: bytes.count, Self.digests(bytes))
        #expect(mismatch.status == 460)
        #expect(mismatch.header("Upload-Bad-Blocks") == "1")
        #expect(try Self.head(f, location).header("Upload-Bad-Blocks") == "1")
        // The bad block goes again alone, at its own offset, checked by Upload-Checksum; a wrong one stays bad.
        let start = Self.block, slice = Array(bytes[start ..< 2 * Self.block])
        let right = "sha256 " + Data(Digest.hash(.sha256, slice)).base64EncodedString()
        let wrong = "sha256 " + Data(Digest.hash(.sha256, Array(damaged[start ..< 2 * Self.block]))).base64EncodedString()
        #expect(try TusTests.patch(f, location, offset: start, slice, extra: ["-H", "Upload-Checksum: \(wrong)"]).status == 460)
        #expect(try TusTests.patch(f, location, offset: 0, Array(bytes[0 ..< Self.block]), extra: ["-H", "Upload-Checksum: \(right)"]).status == 409,
                "only a bad block may be written again")
        #expect(!FileManager.default.fileExists(atPath: f.file("inbox/flip.bin").path))
        let repaired = try TusTests.patch(f, location, offset: start, slice, extra: ["-H", "Upload-Checksum: \(right)"])
        #expect(repaired.status == 204, "\(repaired.status) \(repaired.text)")
        #expect(try Data(contentsOf: f.file("inbox/flip.bin")) == Data(bytes))
    }

    /// curl killed with SIGKILL inside the third block of a PATCH: the two whole blocks stay, the rest goes.
    @Test func aCutBodyKeepsEveryWholeBlock() throws {
        let f = try ServerFixture()
        let bytes = try Self.urandom(3 * Self.block)
        let location = try Self.create(f, length: bytes.count, name: "cut.bin")
        let p = Process()
        p.executableURL = try TestPrograms.path("curl")
        p.arguments = ["-s", "-o", "/dev/null", "-X", "PATCH"] + Curl.auth + Self.tus + Self.octets
            + ["-H", "Upload-Offset: 0", "-H", "Content-Length: \(bytes.count)", "-T", "-", f.url(location)]
        let input = Pipe()
        p.standardInput = input
        try p.run()
        input.fileHandleForWriting.write(Data(bytes[0 ..< 2 * Self.block + 100_000]))
        var offset = 0
        for _ in 0 ..< 3000 where offset < 2 * Self.block {
            offset = Int(try Self.head(f, location).header("Upload-Offset") ?? "") ?? 0
            usleep(10_000)
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(offset == 2 * Self.block)
        var settled = ""
        for _ in 0 ..< 500 {
            let h = try Self.head(f, location)
            settled = h.header("Upload-Offset") ?? ""
            if settled == String(2 * Self.block), (try? TusTests.patch(f, location, offset: 2 * Self.block, [])).map({ $0.status != 423 }) ?? false { break }
            usleep(10_000)
        }
        #expect(settled == String(2 * Self.block))
        let rest = try TusTests.patch(f, location, offset: 2 * Self.block, Array(bytes[(2 * Self.block)...]))
        #expect(rest.status == 204, "\(rest.status) \(rest.text)")
        #expect(try Self.confirm(f, location, offset: bytes.count, Self.digests(bytes)).status == 204)
        #expect(try Data(contentsOf: f.file("inbox/cut.bin")) == Data(bytes))
    }
}

import Foundation
import SkyliftCore
import SkyliftHashing
@testable import SkyliftStorageServer
import Testing
import TestPrograms
import TestProbes

/// tus `checksum` and `block-checksum` over a bucket, against moto and a one-node Ceph RGW: a checksummed PATCH is
/// stored only when it matches (and carries at most one part); a `block-checksum` upload sent in one PATCH is
/// finished only once every block is confirmed, and a block named bad is sent again and replaces its part (or the
/// tail) — through another instance than the one that received the data.
@Suite(.serialized, .timeLimit(.minutes(3))) struct BucketTusChecksumTests {
    static let partSize = BucketTusTests.partSize

    static func sum(_ bytes: ArraySlice<UInt8>, _ algorithm: BlockChecksumAlgorithm) -> [UInt8] {
        var c = BlockChecksum(algorithm)
        Array(bytes).withUnsafeBytes { c.update($0) }
        return c.finalizeAndReset()
    }

    static func confirm(_ server: StorageServer, _ location: String, offset: Int, first: Int, _ digests: [[UInt8]]) throws -> CurlResult {
        let value = TusProtocol.BlockDigests(first: first, digests: digests).headerValue
        return try Curl.run(["-X", "PATCH"] + BucketTusTests.tus + BucketTusTests.patchType
            + ["-H", "Upload-Offset: \(offset)", "-H", "Content-Length: 0", "-H", "Upload-Block-Digests: \(value)", server.baseURL + location])
    }

    @Test(arguments: S3Peer.allCases) func aChecksummedPatchIsStoredOnlyWhenItMatches(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer, partSize: Self.partSize)
        let server = try BucketTusTests.serve(store)
        defer { server.stop() }
        let options = try Curl.run(["-X", "OPTIONS", server.baseURL + "/uploads/"])
        let extensions = (options.header("Tus-Extension") ?? "").split(separator: ",")
        #expect(extensions.contains("checksum") && extensions.contains("block-checksum"), "\(extensions)")
        #expect(options.header("Tus-Block-Size") == String(Self.partSize))

        let data = randomBytes(3 << 20)
        let meta = BucketTusTests.metadata([("filename", "checked.bin")])
        let created = try BucketTusTests.create(server, folder: "", ["-H", "Upload-Length: \(data.count)", "-H", "Upload-Metadata: \(meta)"])
        let location = try #require(created.header("Location"))
        let first = data[0 ..< 1 << 20]
        let wrong = "sha256 " + Data(Digest.hash(.sha256, Array(data[1 ..< 1 + 1 << 20]))).base64EncodedString()
        let refused = try BucketTusTests.patch(server, location, at: 0, first, ["-H", "Upload-Checksum: \(wrong)"])
        #expect(refused.status == 460, "\(refused.status) \(refused.text)")
        #expect(try BucketTusTests.head(server, location).header("Upload-Offset") == "0")

        let sha1 = "sha1 " + Data(Digest.hash(.sha1, Array(first))).base64EncodedString()
        let stored = try BucketTusTests.patch(server, location, at: 0, first, ["-H", "Upload-Checksum: \(sha1)"])
        #expect(stored.status == 204 && stored.header("Upload-Offset") == String(1 << 20), "\(stored.status) \(stored.text)")
        let rest = data[(1 << 20)...]
        let sha256 = "sha256 " + Data(Digest.hash(.sha256, Array(rest))).base64EncodedString()
        #expect(try BucketTusTests.patch(server, location, at: 1 << 20, rest, ["-H", "Upload-Checksum: \(sha256)"]).status == 204)
        #expect(try Curl.run([server.baseURL + "/dav/checked.bin"]).body == data)
        #expect(try await store.stat("checked.bin")?.sha256 == Digest.hash(.sha256, data))

        // More than a part with a checksum: refused before any of it is read, naming the way out.
        let big = randomBytes(Self.partSize + 1)
        let other = try BucketTusTests.create(server, folder: "", ["-H", "Upload-Length: \(big.count)",
                                                                   "-H", "Upload-Metadata: \(BucketTusTests.metadata([("filename", "big.bin")]))"])
        let bigLocation = try #require(other.header("Location"))
        let tooBig = try BucketTusTests.patch(server, bigLocation, at: 0, big[...],
                                              ["-H", "Upload-Checksum: sha256 " + Data(Digest.hash(.sha256, big)).base64EncodedString()])
        #expect(tooBig.status == 413 && tooBig.text.contains("block-checksum"), "\(tooBig.status) \(tooBig.text)")
        #expect(try BucketTusTests.head(server, bigLocation).header("Upload-Offset") == "0")
    }

    @Test(arguments: S3Peer.allCases) func blocksAreConfirmedAndBadOnesSentAgain(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer, partSize: Self.partSize)
        let first = try BucketTusTests.serve(store), second = try BucketTusTests.serve(store)
        defer { first.stop(); second.stop() }
        let data = randomBytes(2 * Self.partSize + 1000)
        let blocks = stride(from: 0, to: data.count, by: Self.partSize).map { data[$0 ..< min($0 + Self.partSize, data.count)] }
        let digests = blocks.map { Self.sum($0, .crc32c) }
        let meta = BucketTusTests.metadata([("filename", "blocks.bin")])
        let created = try BucketTusTests.create(first, folder: "", ["-H", "Upload-Length: \(data.count)", "-H", "Upload-Metadata: \(meta)",
                                                                    "-H", "Upload-Block-Checksum: crc32c"])
        #expect(created.status == 201 && created.header("Upload-Block-Size") == String(Self.partSize), "\(created.text)")
        let location = try #require(created.header("Location"))
        let sent = try BucketTusTests.patch(first, location, at: 0, data[...])
        #expect(sent.status == 204 && sent.header("Upload-Offset") == String(data.count), "\(sent.status) \(sent.text)")
        #expect(try await store.stat("blocks.bin") == nil, "not finished before every block is confirmed")

        // The client's view of blocks 1 (a whole part) and 2 (the tail) differs: both are named bad.
        var claimed = digests
        claimed[1][0] ^= 1
        claimed[2][0] ^= 1
        let mismatch = try Self.confirm(second, location, offset: data.count, first: 0, claimed)
        #expect(mismatch.status == 460 && mismatch.header("Upload-Bad-Blocks") == "1,2", "\(mismatch.status) \(mismatch.text)")
        let head = try BucketTusTests.head(first, location)
        #expect(head.header("Upload-Bad-Blocks") == "1,2" && head.header("Upload-Blocks-Confirmed") == "3")
        #expect(try Self.confirm(first, location, offset: data.count, first: 0, digests).status == 409, "bad blocks go first")

        // Sent again: a checksum that does not match leaves the block bad; a good one replaces it.
        let offset1 = Self.partSize
        let wrongSum = "crc32c " + Data(Self.sum(blocks[0], .crc32c)).base64EncodedString()
        let stillBad = try BucketTusTests.patch(second, location, at: offset1, blocks[1], ["-H", "Upload-Checksum: \(wrongSum)"])
        #expect(stillBad.status == 460, "\(stillBad.status) \(stillBad.text)")
        for index in [1, 2] {
            let checksum = "crc32c " + Data(digests[index]).base64EncodedString()
            let fixed = try BucketTusTests.patch(index == 1 ? second : first, location, at: index * Self.partSize, blocks[index],
                                                 ["-H", "Upload-Checksum: \(checksum)"])
            #expect(fixed.status == 204, "\(fixed.status) \(fixed.text)")
        }
        // The last repair finished the upload: every byte in, every block confirmed, none bad.
        #expect(try Curl.run([first.baseURL + "/dav/blocks.bin"]).body == data)
        #expect(try await store.stat("blocks.bin")?.sha256 == Digest.hash(.sha256, data))
        #expect(try await store.pendingUploads().isEmpty)
        #expect(try await store.keys(under: store.systemKey("blocks/"), operation: "test", path: "").isEmpty)
    }

    @Test(arguments: S3Peer.allCases) func aConfirmedUploadIsFinishedByItsLastConfirmation(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer, partSize: Self.partSize)
        let server = try BucketTusTests.serve(store)
        defer { server.stop() }
        let data = randomBytes(Self.partSize + 70_000)
        let meta = BucketTusTests.metadata([("filename", "sha.bin")])
        let created = try BucketTusTests.create(server, folder: "", ["-H", "Upload-Length: \(data.count)", "-H", "Upload-Metadata: \(meta)",
                                                                     "-H", "Upload-Block-Checksum: sha256"])
        let location = try #require(created.header("Location"))
        // Two PATCHes, the second starting inside the first block: blocks follow parts, not PATCHes.
        #expect(try BucketTusTests.patch(server, location, at: 0, data[0 ..< 1000]).status == 204)
        #expect(try BucketTusTests.patch(server, location, at: 1000, data[1000...]).status == 204)
        let digests = [Self.sum(data[0 ..< Self.partSize], .sha256), Self.sum(data[Self.partSize...], .sha256)]
        #expect(try Self.confirm(server, location, offset: data.count, first: 1, [digests[1]]).status == 409, "confirm from block 0")
        let done = try Self.confirm(server, location, offset: data.count, first: 0, digests)
        #expect(done.status == 204, "\(done.status) \(done.text)")
        #expect(try Curl.run([server.baseURL + "/dav/sha.bin"]).body == data)
        #expect(try await store.stat("sha.bin")?.sha256 == Digest.hash(.sha256, data))

        // Data of a block-checksum upload is checked by block: an Upload-Checksum with it is refused, not ignored.
        let small = randomBytes(10)
        let both = try Curl.run(["-X", "POST"] + BucketTusTests.tus + BucketTusTests.patchType
            + ["-H", "Upload-Length: 10", "-H", "Upload-Metadata: \(BucketTusTests.metadata([("filename", "both.bin")]))",
               "-H", "Upload-Block-Checksum: crc32c", "-H", "Upload-Checksum: sha1 " + Data(Digest.hash(.sha1, small)).base64EncodedString(),
               "--data-binary", "@-", server.baseURL + "/dav/"], stdin: Data(small))
        #expect(both.status == 400 && both.text.contains("Upload-Block-Digests"), "\(both.status) \(both.text)")
    }
}

import Foundation
import SkyliftHashing
import SkyliftHTTPClient
@testable import SkyliftRemotes
import SkyliftCore
import Testing
import TestProbes
@testable import SkyliftS3

/// Sends `bytes[range]` as a part of `write`.
func sendPart(_ write: any RemoteWrite, _ bytes: [UInt8], _ range: Range<Int>) async throws -> Int64 {
    let slice = Array(bytes[range])
    return try await write.send(WritePart(offset: Int64(range.lowerBound), length: Int64(range.count),
                                          checksum: Digest.hash(.sha256, slice)) { InputStream(data: Data(slice)) })
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct S3RemoteTests {
    func makeRemote(_ peer: S3Peer, prefix: String = "media/", verifying: Bool = true) async throws -> S3Remote {
        let server = try await S3TestServer.get(peer, verifying: verifying)
        return S3Remote(client: server.client(), location: S3Location(bucket: try await server.makeBucket(), prefix: prefix))
    }

    @Test(arguments: S3Peer.allCases) func statListReadDelete(peer: S3Peer) async throws {
        let remote = try await makeRemote(peer, verifying: false)
        let client = remote.client, bucket = remote.location.bucket
        let bytes = Array("hello, s3 remote".utf8)
        try await client.putObject(bucket: bucket, key: "media/a b.txt", body: .bytes(bytes), sha256: Digest.hash(.sha256, bytes))
        try await client.putObject(bucket: bucket, key: "media/sub/ü.mov", body: .bytes([1, 2, 3]))
        try await client.putObject(bucket: bucket, key: "elsewhere.txt", body: .bytes([9]))

        #expect(remote.folderURL.absoluteString == "s3://\(bucket)/media/")
        let object = try #require(try await remote.stat("a b.txt"))
        #expect(object.info.length == Int64(bytes.count))
        #expect(object.url.absoluteString == "s3://\(bucket)/media/a%20b.txt")
        #expect(try await remote.stat("missing.txt") == nil)

        let top = try await remote.list("")
        #expect(Set(top.map(\.name)) == ["a b.txt", "sub"])
        #expect(top.first { $0.name == "sub" }?.isFolder == true)
        #expect(try await remote.list("sub").map(\.name) == ["sub/ü.mov"])

        let part = try await remote.read("a b.txt", range: ByteRange(offset: 7, length: 2), ifMatch: object.info.etag)
        #expect(try await part.collect(upTo: 10) == Array("s3".utf8))
        do {
            _ = try await remote.read("a b.txt", range: nil, ifMatch: "\"stale\"")
            Issue.record("read with a stale ETag succeeded")
        } catch let error as RemoteError {
            #expect(error.status == 412)
        }

        try await remote.delete("a b.txt")
        try await remote.delete("a b.txt")
        #expect(try await remote.stat("a b.txt") == nil)
    }

    /// Parts are slots of a fixed size, sent in any order; the service's part list is what a reattached write trusts.
    @Test(arguments: S3Peer.allCases) func writeResumesFromTheServicesPartList(peer: S3Peer) async throws {
        var remote = try await makeRemote(peer)
        remote.partLength = 5 << 20
        let length = 11 << 20
        let bytes = randomBytes(length)
        let first = try #require(try await remote.startWrite("clip.mov", length: Int64(length)) as? any PartedWrite)
        #expect(first.partLength == 5 << 20 && first.partCount(length: Int64(length)) == 3)
        #expect(try await first.held(length: Int64(length)) == (0, [1, 2, 3]))
        // The last part first, as a parallel upload may store it.
        try await first.send(part(bytes, (10 << 20)..<length), number: 3)

        // Another process reattaches with only the token.
        var fresh = S3Remote(client: remote.client, location: remote.location)
        fresh.partLength = 5 << 20
        let second = try #require(try await fresh.resumeWrite("clip.mov", length: Int64(length), token: first.token) as? any PartedWrite)
        #expect(try await second.storedParts() == [3: 1 << 20])
        #expect(try await second.held(length: Int64(length)) == (1 << 20, [1, 2]))
        #expect(try await second.confirmedOffset() == 0)
        await #expect(throws: RemoteError.self) { _ = try await sendPart(second, bytes, (1 << 20)..<(6 << 20)) }
        await #expect(throws: RemoteError.self) { try await second.finish() }
        try await second.send(part(bytes, (5 << 20)..<(10 << 20)), number: 2)
        #expect(try await sendPart(second, bytes, 0..<(5 << 20)) == 5 << 20)
        #expect(try await second.confirmedOffset() == Int64(length))
        try await second.finish()

        let object = try #require(try await remote.stat("clip.mov"))
        #expect(object.info.length == Int64(length))
        #expect(object.info.contentType == "video/quicktime")
        let stored = try await remote.read("clip.mov", range: nil).collect(upTo: length)
        #expect(Digest.hash(.sha256, stored) == Digest.hash(.sha256, bytes))
        #expect(try await fresh.resumeWrite("clip.mov", length: Int64(length), token: first.token) == nil)
    }

    func part(_ bytes: [UInt8], _ range: Range<Int>) -> WritePart {
        let slice = Array(bytes[range])
        return WritePart(offset: Int64(range.lowerBound), length: Int64(range.count), checksum: Digest.hash(.sha256, slice)) {
            InputStream(data: Data(slice))
        }
    }

    @Test(arguments: S3Peer.allCases) func smallPartsAndEmptyObjects(peer: S3Peer) async throws {
        let remote = try await makeRemote(peer, prefix: "")
        let write = try await remote.startWrite("tiny", length: 10 << 20)
        let bytes = [UInt8](repeating: 1, count: 10 << 20)
        do {
            _ = try await sendPart(write, bytes, 0..<(1 << 20))
            Issue.record("a 1 MiB first part was accepted")
        } catch let error as RemoteError {
            #expect(error.disposition == .fatal)
        }
        try await write.abort()

        let empty = try await remote.startWrite("empty", length: 0)
        #expect(try await sendPart(empty, [], 0..<0) == 0)
        try await empty.finish()
        #expect(try await remote.stat("empty")?.info.length == 0)
    }
}

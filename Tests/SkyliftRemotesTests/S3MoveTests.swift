import Foundation
import SkyliftHashing
import SkyliftHTTPClient
@testable import SkyliftRemotes
import SkyliftCore
import Testing
import TestProbes
@testable import SkyliftS3

/// Moves and copies on the service (CopyObject, UploadPartCopy), on moto and on Ceph RGW.
@Suite(.serialized, .timeLimit(.minutes(2))) struct S3MoveTests {
    @Test(arguments: S3Peer.allCases) func objectsAndFoldersMoveWithoutPassingThroughTheClient(peer: S3Peer) async throws {
        // Folder moves list with a prefix holding `/`, which moto's signature checker gets wrong (see S3TestServer).
        let server = try await S3TestServer.get(peer, verifying: false)
        let recorder = RecordingTransport(makeDefaultTransport())
        let client = S3Client(configuration: server.configuration, transport: recorder)
        let remote = S3Remote(client: client, location: S3Location(bucket: try await server.makeBucket(), prefix: "media/"))
        let bucket = remote.location.bucket
        let files = ["a.jpg": randomBytes(1000), "trip/day1/b.mov": randomBytes(3000), "trip/c.txt": randomBytes(10)]
        for (name, bytes) in files {
            try await client.putObject(bucket: bucket, key: "media/" + name, body: .bytes(bytes), sha256: Digest.hash(.sha256, bytes),
                                       contentType: MediaType.forPath(name))
        }
        let sentBefore = recorder.requests.compactMap(\.body.length).reduce(0, +)

        try await remote.move("a.jpg", to: "sorted/a.jpg")
        try await remote.move("trip", to: "trip 2026")
        try await remote.copy("trip 2026/c.txt", to: "backup/c.txt")

        let keys = try await client.listObjects(bucket: bucket).map(\.key).sorted()
        #expect(keys == ["media/backup/c.txt", "media/sorted/a.jpg", "media/trip 2026/c.txt", "media/trip 2026/day1/b.mov"])
        for (key, name) in [("media/sorted/a.jpg", "a.jpg"), ("media/trip 2026/day1/b.mov", "trip/day1/b.mov"),
                            ("media/backup/c.txt", "trip/c.txt")] {
            #expect(try await client.getObject(bucket: bucket, key: key).collect(upTo: 4000) == files[name], "\(key)")
        }
        #expect(try await client.headObject(bucket: bucket, key: "media/trip 2026/day1/b.mov").contentType == "video/quicktime")
        // No object bytes went up for any of it.
        #expect(recorder.requests.compactMap(\.body.length).reduce(0, +) == sentBefore)

        await #expect { try await remote.move("nothing", to: "elsewhere") } throws: { error in
            (error as? RemoteError)?.status == 404
        }
    }

    /// Above the single-copy limit (5 GiB; lowered here) the copy goes part by part with UploadPartCopy.
    @Test(arguments: S3Peer.allCases) func largeObjectsAreCopiedPartByPart(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer)
        let client = server.client()
        let bucket = try await server.makeBucket()
        let bytes = randomBytes((11 << 20) + 5)
        try await client.putObject(bucket: bucket, key: "big.mov", body: .bytes(bytes), sha256: Digest.hash(.sha256, bytes))
        let etag = try await client.copyObject(bucket: bucket, from: "big.mov", to: "copy.mov", size: Int64(bytes.count),
                                               singleCopyLimit: 5 << 20, partSize: 5 << 20)
        #expect(etag.hasSuffix("-3\""))
        let info = try await client.headObject(bucket: bucket, key: "copy.mov")
        #expect(info.etag == etag)
        #expect(Digest.hash(.sha256, try await client.getObject(bucket: bucket, key: "copy.mov").collect(upTo: bytes.count + 1))
                == Digest.hash(.sha256, bytes))
    }
}

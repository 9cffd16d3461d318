import SkyliftBlobStream
import Foundation
import SkyliftHashing
import SkyliftHTTPClient
@testable import SkyliftRemotes
import SkyliftCore
import Testing
import TestProbes
import SkyliftUploads
@testable import SkyliftS3

/// The generic upload engine (Uploads) driving an `S3Remote`: what `skylift upload … --to s3://…` runs.
@Suite(.serialized, .timeLimit(.minutes(2))) struct S3UploadTests {
    @Test(arguments: S3Peer.allCases) func uploadEngineResumesAnInterruptedS3Upload(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer, verifying: false)
        let remote = S3Remote(client: server.client(), location: S3Location(bucket: try await server.makeBucket(), prefix: "backup/"))
        let scratch = try TempFolder("s3test"), directory = scratch.url
        let size = 23 << 20
        let (file, sha256) = try randomFile(in: directory, size: size)
        let uploader = Uploader(remote: remote, store: ResumeFileStore(directory: directory.appendingPathComponent("resume")),
                                options: UploadOptions(verify: true, retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 0.02),
                                                       partLength: 8 << 20, parts: 1))

        // The first run's source becomes unreadable inside the third 8 MiB part.
        let failing = try await BlobUploadSource(name: file.path) { _ in FailingSource(path: file.path, failAt: 20 << 20) }
        await #expect(throws: (any Error).self) {
            _ = try await uploader.run(failing, as: "day 1/ünïcode clip.mov") { _ in }
        }

        let result = try await uploader.run(try await BlobUploadSource.file(file.path), as: "day 1/ünïcode clip.mov") { _ in }
        #expect(result.resumedFrom == 16 << 20)
        #expect(result.bytesSent == Int64(size - (16 << 20)))
        #expect(result.verified)

        let object = try #require(try await remote.stat("day 1/ünïcode clip.mov"))
        #expect(object.info.length == Int64(size))
        var digest = Digest(.sha256)
        for try await chunk in try await remote.read("day 1/ünïcode clip.mov", range: nil).body { digest.update(chunk) }
        #expect(digest.finalize() == sha256)
        let listed = try await remote.client.listObjects(bucket: remote.location.bucket, prefix: "backup/day 1/")
        #expect(listed.map(\.key) == ["backup/day 1/ünïcode clip.mov"])

        // A second run finds the object there and skips it.
        let again = try await uploader.run(try await BlobUploadSource.file(file.path), as: "day 1/ünïcode clip.mov") { _ in }
        #expect(again.skipped)
    }
}

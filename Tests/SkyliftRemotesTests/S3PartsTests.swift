import SkyliftBlobStream
import Foundation
import SkyliftHashing
import SkyliftHTTPClient
@testable import SkyliftRemotes
import SkyliftCore
import Synchronization
import Testing
import TestProbes
import SkyliftUploads
@testable import SkyliftS3

/// Holds each UploadPart request until `target` of them are in flight at once (or a safety timeout passes),
/// and records the most it saw: parts really in flight together, counted, not inferred from timing.
final class GatheringTransport: HTTPTransport, Sendable {
    private let inner: any HTTPTransport
    private let target: Int
    private let counts = Mutex<(now: Int, most: Int, parts: Int)>((0, 0, 0))

    init(_ inner: any HTTPTransport, target: Int) {
        self.inner = inner
        self.target = target
    }

    /// The most UploadPart requests that were inside the transport at the same moment.
    var mostInFlight: Int { counts.withLock { $0.most } }
    /// UploadPart requests seen.
    var partRequests: Int { counts.withLock { $0.parts } }

    func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        guard request.method == "PUT", request.url.query?.contains("partNumber=") == true else { return try await inner.execute(request) }
        counts.withLock { c in
            c.now += 1
            c.parts += 1
            c.most = max(c.most, c.now)
        }
        defer { counts.withLock { $0.now -= 1 } }
        let deadline = ContinuousClock.now + .seconds(20)
        while counts.withLock({ $0.most }) < target && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        return try await inner.execute(request)
    }
}

/// The upload engine sending S3 multipart parts in parallel: what `skylift upload --parts N` runs.
@Suite(.serialized, .timeLimit(.minutes(3))) struct S3PartsTests {
    func engine(_ remote: S3Remote, state: URL, parts: Int) -> Uploader {
        Uploader(remote: remote, store: ResumeFileStore(directory: state),
                 options: UploadOptions(retry: RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.02), parts: parts))
    }

    @Test(arguments: S3Peer.allCases) func partsGoUpInParallel(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer)
        let bucket = try await server.makeBucket()
        let scratch = try TempFolder("s3test"), directory = scratch.url
        let gathering = GatheringTransport(makeDefaultTransport(), target: 3)
        let remote = S3Remote(client: S3Client(configuration: server.configuration, transport: gathering),
                              location: S3Location(bucket: bucket, prefix: ""), partLength: 5 << 20)
        let (file, sha256) = try randomFile(in: directory, size: (17 << 20) + 3)
        let result = try await engine(remote, state: directory.appendingPathComponent("state"), parts: 3)
            .run(try await BlobUploadSource.file(file.path), as: "big.mov") { _ in }
        #expect(gathering.mostInFlight == 3)
        #expect(gathering.partRequests == 4)
        #expect(result.bytesSent == Int64((17 << 20) + 3))
        let stored = try await server.client().getObject(bucket: bucket, key: "big.mov").collect(upTo: 18 << 20)
        #expect(Digest.hash(.sha256, stored) == sha256)
    }

    @Test(arguments: S3Peer.allCases) func aFailedRunResumesFromTheStoredParts(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer)
        let bucket = try await server.makeBucket()
        let scratch = try TempFolder("s3test"), directory = scratch.url
        let remote = S3Remote(client: server.client(), location: S3Location(bucket: bucket, prefix: ""), partLength: 5 << 20)
        let (file, sha256) = try randomFile(in: directory, size: 21 << 20)
        let state = directory.appendingPathComponent("state")
        // The source fails inside part 3 (parts of 5 MiB); one part at a time, so parts 1 and 2 are stored.
        let failing = try await BlobUploadSource(name: file.path) { _ in FailingSource(path: file.path, failAt: 12 << 20) }
        await #expect(throws: (any Error).self) { _ = try await engine(remote, state: state, parts: 1).run(failing, as: "k") { _ in } }

        let result = try await engine(remote, state: state, parts: 3).run(try await BlobUploadSource.file(file.path), as: "k") { _ in }
        #expect(result.resumedFrom == 10 << 20)
        #expect(result.bytesSent == 11 << 20)
        let stored = try await server.client().getObject(bucket: bucket, key: "k").collect(upTo: 22 << 20)
        #expect(Digest.hash(.sha256, stored) == sha256)
    }

    @Test(arguments: S3Peer.allCases) func abandonAbortsTheUnfinishedUpload(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer)
        let client = server.client()
        let bucket = try await server.makeBucket()
        let scratch = try TempFolder("s3test"), directory = scratch.url
        let remote = S3Remote(client: client, location: S3Location(bucket: bucket, prefix: ""), partLength: 5 << 20)
        let (file, _) = try randomFile(in: directory, size: 11 << 20)
        let store = ResumeFileStore(directory: directory.appendingPathComponent("state"))
        let uploader = Uploader(remote: remote, store: store, options: UploadOptions(retry: .immediate, parts: 1))
        let failing = try await BlobUploadSource(name: file.path) { _ in FailingSource(path: file.path, failAt: 6 << 20) }
        await #expect(throws: (any Error).self) { _ = try await uploader.run(failing, as: "k") { _ in } }
        let id = try #require(store.load(source: file.path, destination: "s3://\(bucket)/k")?.token)
        #expect(try await uploader.abandon(source: file.path, as: "k") == .aborted(confirmed: 5 << 20))
        #expect(store.load(source: file.path, destination: "s3://\(bucket)/k") == nil)
        do {
            _ = try await client.listParts(bucket: bucket, key: "k", uploadId: id)
            Issue.record("parts still listed after abandon")
        } catch let error as S3Error {
            #expect(error.code == "NoSuchUpload")
        }
    }
}

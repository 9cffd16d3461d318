import BlobStream
import Foundation
import Hashing
import HTTPClient
@testable import Remotes
import SkyliftCore
import Testing
import TestProbes

/// A file source that fails every read at or past `failAt`: an upload that dies part-way.
final class FailingSource: BlobSource {
    let file: FileSource
    let failAt: Int64
    init(path: String, failAt: Int64) {
        file = FileSource(path: path)
        self.failAt = failAt
    }
    var name: String { file.name }
    func open(completion: @escaping @Sendable (Result<BlobInfo, any Error>) -> Void) { file.open(completion: completion) }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        if offset + Int64(buffer.count) > failAt { throw CocoaError(.fileReadUnknown) }
        return try file.read(into: buffer, at: offset)
    }
    func close() { file.close() }
}

/// `count` random bytes, made 8 at a time.
func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    var words = [UInt64](repeating: 0, count: count / 8 + 1)
    for i in words.indices { words[i] = generator.next() }
    return words.withUnsafeBytes { Array($0.prefix(count)) }
}

func randomFile(in directory: URL, size: Int) throws -> (url: URL, sha256: [UInt8]) {
    let url = directory.appendingPathComponent("blob-\(size)")
    let bytes = randomBytes(size)
    try Data(bytes).write(to: url)
    return (url, Digest.hash(.sha256, bytes))
}

func scratchDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("s3test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct S3ClientTests {
    @Test(arguments: S3Peer.allCases) func objectRoundTripWithAwkwardKey(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer, verifying: false)
        let client = server.client()
        let bucket = try await server.makeBucket()
        let key = "photos/ünïcødé dir/a b+c&d=e?.txt"
        let bytes = Array("0123456789abcdefghij".utf8)
        let etag = try await client.putObject(bucket: bucket, key: key, body: .bytes(bytes), sha256: Digest.hash(.sha256, bytes),
                                              contentType: "text/plain")
        #expect(!etag.isEmpty)

        let info = try await client.headObject(bucket: bucket, key: key)
        #expect(info.length == 20)
        #expect(info.etag == etag)
        #expect(info.contentType == "text/plain")

        let ranged = try await client.getObject(bucket: bucket, key: key, range: ByteRange(offset: 5, length: 10), ifMatch: etag)
        #expect(ranged.status == 206)
        #expect(try await ranged.collect(upTo: 100) == Array(bytes[5..<15]))

        let listed = try await client.listObjects(bucket: bucket, prefix: "photos/ünï")
        #expect(listed.map(\.key) == [key])
        #expect(listed.first?.size == 20)

        try await client.deleteObject(bucket: bucket, key: key)
        await #expect(throws: S3Error.service(status: 404, code: "NotFound", message: "", resource: "s3://\(bucket)/\(key)")) {
            _ = try await client.headObject(bucket: bucket, key: key)
        }
    }

    @Test(arguments: S3Peer.allCases) func ifMatchOnAChangedObjectFails(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer)
        let client = server.client()
        let bucket = try await server.makeBucket()
        let old = try await client.putObject(bucket: bucket, key: "v", body: .bytes(Array("one".utf8)))
        try await client.putObject(bucket: bucket, key: "v", body: .bytes(Array("two!".utf8)))
        do {
            _ = try await client.getObject(bucket: bucket, key: "v", range: ByteRange(offset: 0, length: 2), ifMatch: old)
            Issue.record("GET with a stale If-Match succeeded")
        } catch let error as S3Error {
            #expect(error.code == "PreconditionFailed")
        }
    }

    @Test(arguments: S3Peer.allCases, [("known key, wrong secret", "SignatureDoesNotMatch"), ("unknown key", "InvalidAccessKeyId")])
    func wrongCredentialsFailOnceWithTheirCode(peer: S3Peer, expected: (situation: String, code: String)) async throws {
        let (situation, code) = expected
        let server = try await S3TestServer.get(peer)
        let bucket = try await server.makeBucket()
        var configuration = server.configuration
        configuration.credentials = code == "SignatureDoesNotMatch"
            ? S3Credentials(accessKeyID: configuration.credentials.accessKeyID, secretAccessKey: "not-the-secret")
            : S3Credentials(accessKeyID: "AKIANOSUCHKEY0000000", secretAccessKey: "whatever")
        let recorder = RecordingTransport(makeDefaultTransport())
        let client = S3Client(configuration: configuration, transport: recorder, retry: RetryPolicy(maxAttempts: 5, baseDelay: 0.01, maxDelay: 0.02))
        do {
            _ = try await client.listObjects(bucket: bucket)
            Issue.record("\(situation): request accepted")
        } catch let error as S3Error {
            #expect(error.code == code)
            #expect(error.status == 403)
            #expect(!error.description.contains("not-the-secret"))
        }
        #expect(recorder.requests.count == 1)
    }

    @Test(arguments: S3Peer.allCases) func missingBucketIsNamed(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer)
        do {
            _ = try await server.client().listObjects(bucket: "skylift-no-such-bucket")
            Issue.record("listing a missing bucket succeeded")
        } catch let error as S3Error {
            #expect(error.code == "NoSuchBucket")
            #expect(error.description.hasPrefix("S3 NoSuchBucket (HTTP 404) for s3://skylift-no-such-bucket/: the bucket does not exist"))
        }
    }

    /// moto neither checks nor lists part checksums, so this looks at what goes on the wire.
    @Test(arguments: S3Peer.allCases) func partsCarryTheirChecksums(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer)
        let recorder = RecordingTransport(makeDefaultTransport())
        let client = S3Client(configuration: server.configuration, transport: recorder)
        let bucket = try await server.makeBucket()
        let id = try await client.createMultipartUpload(bucket: bucket, key: "k")
        let part = [UInt8](repeating: 7, count: 1000)
        let sha256 = Digest.hash(.sha256, part)
        let etag = try await client.uploadPart(bucket: bucket, key: "k", uploadId: id, number: 1, body: .bytes(part), sha256: sha256)
        let sent = try #require(recorder.requests.last)
        #expect(sent.headers["x-amz-checksum-sha256"] == sha256.base64String)
        #expect(sent.headers["x-amz-content-sha256"] == sha256.hexString)
        #expect(recorder.requests.first?.headers["x-amz-checksum-algorithm"] == "SHA256")
        let listed = try await client.listParts(bucket: bucket, key: "k", uploadId: id)
        #expect(listed.map(\.etag) == [etag])
        try await client.abortMultipartUpload(bucket: bucket, key: "k", uploadId: id)
    }

    @Test func partSizesCoverTenThousandParts() {
        #expect(S3Uploader.partSize(for: 1 << 30, minimum: 8 << 20) == 8 << 20)
        #expect(S3Uploader.partSize(for: 1 << 40, minimum: 8 << 20) == 105 << 20)
        #expect(S3Uploader.partSize(for: 3, minimum: 1) == S3Uploader.smallestPartSize)
    }

    @Test(arguments: S3Peer.allCases) func multipartUploadResumesAfterAFailure(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer)
        let client = server.client()
        let bucket = try await server.makeBucket()
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 21 << 20
        let (file, sha256) = try randomFile(in: directory, size: size)
        let state = directory.appendingPathComponent("state")
        let options = S3Uploader.Options(stateDirectory: state, multipartThreshold: 5 << 20, minimumPartSize: 5 << 20, jobs: 1)
        let uploader = S3Uploader(client: client, options: options)
        let key = "videos/take 1.mov"

        // First attempt dies inside part 3 (parts are 5 MiB: 0–5, 5–10, 10–15 …).
        await #expect(throws: (any Error).self) {
            _ = try await uploader.upload(bucket: bucket, key: key) { FailingSource(path: file.path, failAt: 12 << 20) }
        }
        let stateFiles = try FileManager.default.contentsOfDirectory(atPath: state.path)
        #expect(stateFiles.count == 1)

        let result = try await uploader.upload(bucket: bucket, key: key) { FileSource(path: file.path) }
        #expect(result.partsReused == 2)
        #expect(result.partsSent == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path).isEmpty)

        let response = try await client.getObject(bucket: bucket, key: key)
        var digest = Digest(.sha256)
        var count = 0
        for try await chunk in response.body {
            digest.update(chunk)
            count += chunk.count
        }
        #expect(count == size)
        #expect(digest.finalize() == sha256)
    }

    @Test(arguments: S3Peer.allCases) func parallelPartsAndSinglePut(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer)
        let client = server.client()
        let bucket = try await server.makeBucket()
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let uploader = S3Uploader(client: client, options: .init(stateDirectory: directory.appendingPathComponent("state"),
                                                                 multipartThreshold: 5 << 20, minimumPartSize: 5 << 20, jobs: 3))
        let (big, bigSHA) = try randomFile(in: directory, size: 17 << 20)
        let progress = ProgressLog()
        let result = try await uploader.upload(bucket: bucket, key: "big", source: { FileSource(path: big.path) },
                                               progress: { progress.record($0) })
        #expect(result.partsSent == 4)
        #expect(progress.last == Int64(17 << 20))
        let stored = try await client.getObject(bucket: bucket, key: "big").collect(upTo: 18 << 20)
        #expect(Digest.hash(.sha256, stored) == bigSHA)

        let (small, smallSHA) = try randomFile(in: directory, size: 3000)
        let single = try await uploader.upload(bucket: bucket, key: "small") { FileSource(path: small.path) }
        #expect(single.partsSent == 0)
        #expect(Digest.hash(.sha256, try await client.getObject(bucket: bucket, key: "small").collect(upTo: 4000)) == smallSHA)
    }

    @Test(arguments: S3Peer.allCases) func cancelAbortsTheUnfinishedUpload(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer)
        let client = server.client()
        let bucket = try await server.makeBucket()
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (file, _) = try randomFile(in: directory, size: 11 << 20)
        let uploader = S3Uploader(client: client, options: .init(stateDirectory: directory.appendingPathComponent("state"),
                                                                 multipartThreshold: 5 << 20, minimumPartSize: 5 << 20, jobs: 1))
        await #expect(throws: (any Error).self) {
            _ = try await uploader.upload(bucket: bucket, key: "k") { FailingSource(path: file.path, failAt: 6 << 20) }
        }
        let stateURL = S3UploadStateFile(directory: directory.appendingPathComponent("state"), bucket: bucket, key: "k")
        let id = try #require(try stateURL.load()).uploadId
        #expect(try await uploader.cancel(bucket: bucket, key: "k"))
        #expect(try stateURL.load() == nil)
        do {
            _ = try await client.listParts(bucket: bucket, key: "k", uploadId: id)
            Issue.record("parts still listed after cancel")
        } catch let error as S3Error {
            #expect(error.code == "NoSuchUpload")
        }
    }
}

final class ProgressLog: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var values: [Int64] = []
    func record(_ value: Int64) { lock.withLock { values.append(value) } }
    var last: Int64? { lock.withLock { values.last } }
}

/// Passes requests to a real transport and keeps their heads for inspection.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    // @unchecked: `recorded` is guarded by `lock`.
    private let inner: any HTTPTransport
    private let lock = NSLock()
    private var recorded: [HTTPClientRequest] = []
    init(_ inner: any HTTPTransport) { self.inner = inner }
    var requests: [HTTPClientRequest] { lock.withLock { recorded } }
    func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        lock.withLock { recorded.append(request) }
        return try await inner.execute(request)
    }
}

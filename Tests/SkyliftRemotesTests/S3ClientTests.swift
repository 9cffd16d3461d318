import SkyliftBlobStream
import Foundation
import SkyliftHashing
import SkyliftHTTPClient
@testable import SkyliftRemotes
import SkyliftCore
import Testing
import TestProbes
@testable import SkyliftS3

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
        let client = S3Client(configuration: configuration, transport: recorder)
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
        #expect(S3PartSize.forObject(length: 1 << 30, minimum: 8 << 20) == 8 << 20)
        #expect(S3PartSize.forObject(length: 1 << 40, minimum: 8 << 20) == 105 << 20)
        #expect(S3PartSize.forObject(length: 3, minimum: 1) == S3PartSize.smallest)
    }
}

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

import Foundation
import SkyliftHashing
import SkyliftHTTPClient
@testable import SkyliftRemotes
import SkyliftCore
import Testing
import TestProbes
import SkyliftUploads
@testable import SkyliftS3

/// Passes requests to a real transport, damaging the first `corrupt` PUTs: one byte of the body flipped (what
/// a faulty link or middlebox does to bytes on the wire), or with `wrongMD5` the body intact but declared by
/// the Content-MD5 of other bytes. Records the status of every PUT.
final class CorruptingTransport: HTTPTransport, @unchecked Sendable {
    // @unchecked: `left` and `recorded` are guarded by `lock`.
    private let inner: any HTTPTransport
    private let wrongMD5: Bool
    private let lock = NSLock()
    private var left: Int
    private var recorded: [Int] = []

    init(_ inner: any HTTPTransport, corrupt: Int, wrongMD5: Bool = false) {
        self.inner = inner
        self.wrongMD5 = wrongMD5
        left = corrupt
    }

    var putStatuses: [Int] { lock.withLock { recorded } }

    func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        var request = request
        let damage = request.method == "PUT" && lock.withLock {
            left -= 1
            return left >= 0
        }
        if damage, wrongMD5 {
            request.headers.set("Content-MD5", Digest.hash(.md5, Array("other bytes".utf8)).base64String)
        } else if damage, case let .stream(length, open) = request.body {
            request.body = .stream(length: length) {
                // Test parts are a few MiB: reading one into memory keeps the damage simple.
                let stream = try open()
                stream.open()
                defer { stream.close() }
                var bytes: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let n = stream.read(&buffer, maxLength: buffer.count)
                    if n <= 0 { break }
                    bytes += buffer[0..<n]
                }
                if !bytes.isEmpty { bytes[bytes.count / 2] ^= 0x01 }
                return InputStream(data: Data(bytes))
            }
        }
        let response = try await inner.execute(request)
        if request.method == "PUT" { lock.withLock { recorded.append(response.status) } }
        return response
    }
}

/// RGW ignores `x-amz-checksum-sha256`; what protects a part there is the signed payload hash
/// (`x-amz-content-sha256`, the part's SHA-256 computed once from the source), which it checks. The client
/// reports a refusal once; the engine sends the part again, read anew from its source.
@Suite(.serialized, .timeLimit(.minutes(2))) struct S3IntegrityTests {
    /// The engine over `transport`, with parts of 5 MiB sent one at a time so the damaged PUT is the first.
    func engine(_ server: S3TestServer, bucket: String, transport: CorruptingTransport, in directory: URL) -> Uploader {
        let client = S3Client(configuration: server.configuration, transport: transport)
        let remote = S3Remote(client: client, location: S3Location(bucket: bucket, prefix: ""), partLength: 5 << 20)
        return Uploader(remote: remote, store: ResumeFileStore(directory: directory.appendingPathComponent("state")),
                        options: UploadOptions(retry: RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.02), parts: 1))
    }

    @Test func aPartDamagedOnTheWayIsRefusedByRGWAndSentAgain() async throws {
        let server = try await S3TestServer.get(.rgw)
        let bucket = try await server.makeBucket()
        let part = randomBytes((5 << 20) + 17)
        let sha256 = Digest.hash(.sha256, part)
        let body = HTTPClientRequest.Body.stream(length: Int64(part.count)) { InputStream(data: Data(part)) }

        // The client sends once and reports the refusal, naming the code.
        let once = S3Client(configuration: server.configuration, transport: CorruptingTransport(makeDefaultTransport(), corrupt: 1))
        let first = try await once.createMultipartUpload(bucket: bucket, key: "k")
        do {
            _ = try await once.uploadPart(bucket: bucket, key: "k", uploadId: first, number: 1, body: body, sha256: sha256)
            Issue.record("RGW stored a damaged part")
        } catch let error as S3Error {
            #expect(error.status == 400)
            #expect(error.code == "XAmzContentSHA256Mismatch")
        }
        #expect(try await once.listParts(bucket: bucket, key: "k", uploadId: first).isEmpty)
        try await once.abortMultipartUpload(bucket: bucket, key: "k", uploadId: first)

        // The engine sends the damaged part again and the object is stored intact.
        let scratch = try TempFolder("s3test"), directory = scratch.url
        let (file, fileSHA) = try randomFile(in: directory, size: (9 << 20) + 5)
        let transport = CorruptingTransport(makeDefaultTransport(), corrupt: 1)
        let result = try await engine(server, bucket: bucket, transport: transport, in: directory)
            .run(try await BlobUploadSource.file(file.path), as: "k") { _ in }
        #expect(transport.putStatuses == [400, 200, 200])
        #expect(result.bytesSent > Int64((9 << 20) + 5))
        let stored = try await once.getObject(bucket: bucket, key: "k").collect(upTo: (10 << 20))
        #expect(Digest.hash(.sha256, stored) == fileSHA)
    }

    /// RGW checks Content-MD5 too: a body that does not match it is refused with BadDigest, which the engine retries.
    @Test func aWrongContentMD5IsRefusedByRGWWithBadDigestAndRetried() async throws {
        let server = try await S3TestServer.get(.rgw)
        let bucket = try await server.makeBucket()
        let bytes = randomBytes(50_000)
        let body = HTTPClientRequest.Body.stream(length: Int64(bytes.count)) { InputStream(data: Data(bytes)) }
        let once = S3Client(configuration: server.configuration, transport: CorruptingTransport(makeDefaultTransport(), corrupt: 1, wrongMD5: true))
        await #expect { try await once.putObject(bucket: bucket, key: "md5", body: body, sha256: Digest.hash(.sha256, bytes)) } throws: { error in
            (error as? S3Error)?.code == "BadDigest" && (error as? S3Error)?.status == 400
        }
        let scratch = try TempFolder("s3test"), directory = scratch.url
        let (file, sha) = try randomFile(in: directory, size: 50_000)
        let transport = CorruptingTransport(makeDefaultTransport(), corrupt: 1, wrongMD5: true)
        _ = try await engine(server, bucket: bucket, transport: transport, in: directory).run(try await BlobUploadSource.file(file.path), as: "md5") { _ in }
        #expect(transport.putStatuses == [400, 200])
        #expect(Digest.hash(.sha256, try await once.getObject(bucket: bucket, key: "md5").collect(upTo: 50_001)) == sha)
    }

    @Test func aSinglePutDamagedOnTheWayIsRefusedByRGWAndSentAgain() async throws {
        let server = try await S3TestServer.get(.rgw)
        let bucket = try await server.makeBucket()
        let scratch = try TempFolder("s3test"), directory = scratch.url
        let (file, sha) = try randomFile(in: directory, size: 100_000)
        let transport = CorruptingTransport(makeDefaultTransport(), corrupt: 1)
        _ = try await engine(server, bucket: bucket, transport: transport, in: directory).run(try await BlobUploadSource.file(file.path), as: "small") { _ in }
        #expect(transport.putStatuses == [400, 200])
        #expect(Digest.hash(.sha256, try await server.client().getObject(bucket: bucket, key: "small").collect(upTo: 100_001)) == sha)
    }
}

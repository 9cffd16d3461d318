import SkyliftBlobStream
import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftRangeCache
@testable import SkyliftRemotes
import SkyliftCore
import Testing
@testable import SkyliftS3

/// Plain-HTTP readers (the proxy's origin, BlobStream's HTTP source) reading S3 through the signing transport.
@Suite(.serialized, .timeLimit(.minutes(2))) struct S3SigningTransportTests {
    @Test func rangeOriginReadsAnS3Object() async throws {
        let server = try await S3TestServer.get()
        let client = server.client()
        let bucket = try await server.makeBucket()
        let bytes = randomBytes(300_000)
        let etag = try await client.putObject(bucket: bucket, key: "films/a film.mkv", body: .bytes(bytes))
        let origin = HTTPRangeOrigin(transport: S3SigningTransport(client: client))
        let url = URL(string: "s3://\(bucket)/films/a%20film.mkv")!

        let info = try await origin.contentInfo(of: url)
        #expect(info.length == 300_000)
        #expect(info.etag == etag)
        let body = try await origin.read(url, range: ByteRange(offset: 100_000, length: 50_000), expected: info)
        #expect(body.offset == 100_000)
        var received: [UInt8] = []
        for try await chunk in body.chunks { received += chunk }
        #expect(received == Array(bytes[100_000..<150_000]))

        // The same object by its endpoint URL.
        let direct = URL(string: "\(server.configuration.endpoint.absoluteString)/\(bucket)/films/a%20film.mkv")!
        #expect(try await origin.contentInfo(of: direct).etag == etag)
    }

    @Test func httpSourceCopiesFromS3() async throws {
        let server = try await S3TestServer.get(verifying: false)
        let client = server.client()
        let bucket = try await server.makeBucket()
        let bytes = randomBytes(1_000_000)
        try await client.putObject(bucket: bucket, key: "ü/source.bin", body: .bytes(bytes))
        let source = HTTPSource(url: URL(string: "s3://\(bucket)/%C3%BC/source.bin")!, transport: S3SigningTransport(client: client))
        #expect(try await BlobDigest.compute(.sha256, of: source) == Digest.hash(.sha256, bytes))
    }

    @Test func rangeReadsOfAReplacedObjectAreRefusedNotMixed() async throws {
        let server = try await S3TestServer.get()
        let client = server.client()
        let bucket = try await server.makeBucket()
        try await client.putObject(bucket: bucket, key: "clip.mp4", body: .bytes(randomBytes(100_000)))
        let origin = HTTPRangeOrigin(transport: S3SigningTransport(client: client))
        let url = URL(string: "s3://\(bucket)/clip.mp4")!
        let before = try await origin.contentInfo(of: url)
        try await client.putObject(bucket: bucket, key: "clip.mp4", body: .bytes(randomBytes(100_000)))

        // The origin sends If-Range on the old ETag; the transport sends it as If-Match, so the store answers 412.
        await #expect(throws: RangeOriginError.changed(url: RangeOriginError.display(url))) {
            _ = try await origin.read(url, range: ByteRange(offset: 1000, length: 1000), expected: before)
        }
        let now = try await origin.contentInfo(of: url)
        let body = try await origin.read(url, range: ByteRange(offset: 1000, length: 1000), expected: now)
        for try await _ in body.chunks {}
        #expect(body.info.etag == now.etag)
    }

    @Test func foreignURLsAreRefused() async throws {
        let server = try await S3TestServer.get()
        let transport = S3SigningTransport(client: server.client())
        let url = URL(string: "https://example.com/x?token=secret")!
        await #expect(throws: HTTPClientError.invalidRequest(url: URL(string: "https://example.com/x?token=REDACTED")!,
                                                             reason: "not an s3:// URL or a URL on the S3 endpoint \(server.configuration.endpoint.absoluteString)")) {
            _ = try await transport.execute(HTTPClientRequest(url: url))
        }
    }
}

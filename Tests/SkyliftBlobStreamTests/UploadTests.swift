import SkyliftBlobStream
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SkyliftHashing
import SkyliftHTTPServer
import TestProbes
import Testing

/// URLSession PUTs of a BlobInputStream to a real server on loopback.
@Suite struct UploadTests {
    @Test(arguments: [Int64(0), 1_234_567])
    func urlSessionPutIsByteExact(offset: Int64) async throws {
        let dir = try TempFolder("blobstream")
        let (path, bytes) = try dir.randomFile("upload.bin", count: 3_000_000)
        let server = HTTPServer(configuration: .init(), handler: DigestingHandler())
        try server.start()
        defer { server.stop() }
        let stream = BlobInputStream(source: FileSource(path: path))
        if offset > 0 { #expect(setOffset(stream, offset)) }
        let url = try #require(URL(string: "\(server.baseURL)/up"))
        let answer = try await putStream(stream, length: Int64(bytes.count) - offset, to: url)
        let expected = Array(bytes[Int(offset)...])
        #expect(answer.status == 201)
        #expect(answer.body == "\(expected.count) \(Digest.hash(.sha256, expected).hexString)\n")
        #expect(stream.streamStatus == .atEnd || stream.streamStatus == .closed)
    }

    @Test func fileShrinkingDuringTheUploadFailsTheUpload() async throws {
        let dir = try TempFolder("blobstream")
        let (path, bytes) = try dir.randomFile("shrinks.bin", count: 3_000_000)
        let handler = DigestingHandler()
        let server = HTTPServer(configuration: .init(), handler: handler)
        try server.start()
        defer { server.stop() }
        let source = ShrinkingSource(FileSource(path: path), path: path, after: 1_000_000, to: 1_500_000)
        let url = try #require(URL(string: "\(server.baseURL)/up"))
        do {
            let answer = try await putStream(BlobInputStream(source: source), length: Int64(bytes.count), to: url)
            // Reaching here, the server must not have accepted the body as complete.
            #expect(answer.status != 201)
        } catch {
            // URLSession reported the failed body: what we want.
        }
        #expect(handler.completed == 0)
    }
}


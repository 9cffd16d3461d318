import BlobStream
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hashing
import HTTPServer
import Testing

/// URLSession PUTs of a BlobInputStream to a real server on loopback.
@Suite struct UploadTests {
    /// PUTs the stream and returns the server's `<count> <sha256>` answer.
    func put(_ stream: InputStream, length: Int64, to url: URL) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        request.httpBodyStream = stream
        request.setValue(String(length), forHTTPHeaderField: "Content-Length")
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { c in
            session.dataTask(with: request) { data, response, error in
                if let error { return c.resume(throwing: error) }
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                c.resume(returning: (status, String(decoding: data ?? Data(), as: UTF8.self)))
            }.resume()
        }
    }

    @Test(arguments: [Int64(0), 1_234_567])
    func urlSessionPutIsByteExact(offset: Int64) async throws {
        let dir = try TempDir()
        let (path, bytes) = try dir.randomFile("upload.bin", count: 3_000_000)
        let server = HTTPServer(configuration: .init(), handler: DigestingHandler())
        try server.start()
        defer { server.stop() }
        let stream = BlobInputStream(source: FileSource(path: path))
        if offset > 0 { #expect(setOffset(stream, offset)) }
        let url = try #require(URL(string: "\(server.baseURL)/up"))
        let answer = try await put(stream, length: Int64(bytes.count) - offset, to: url)
        let expected = Array(bytes[Int(offset)...])
        #expect(answer.status == 201)
        #expect(answer.body == "\(expected.count) \(Digest.hash(.sha256, expected).hexString)\n")
        #expect(stream.streamStatus == .atEnd || stream.streamStatus == .closed)
    }
}

import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftHTTPServer
@testable import SkyliftRemotes
import SkyliftCore
import Synchronization
import TestProbes
import Testing
import SkyliftUploads
@testable import SkyliftS3

/// Stands in for an S3 endpoint that misbehaves in ways moto never does: throttling, rejected signatures,
/// a skewed clock. Answers by the key's name and counts requests.
final class MisbehavingS3: HTTPHandler {
    let requests = Atomic<Int>(0)
    /// PUTs of `throttled` answered 503 SlowDown so far; after two, the object exists.
    let throttledPuts = Atomic<Int>(0)

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        let n = requests.add(1, ordering: .relaxed).newValue
        func error(_ status: Int, _ code: String, _ message: String) -> HTTPHeadDecision {
            .respond(HTTPResponse(status: status, headers: ["Content-Type": "application/xml"], body: .bytes(Array(
                "<?xml version=\"1.0\"?><Error><Code>\(code)</Code><Message>\(message)</Message></Error>".utf8))))
        }
        switch request.path {
        case "/bucket/throttled" where request.method == "HEAD":
            return throttledPuts.load(ordering: .relaxed) < 3 ? .respond(HTTPResponse(status: 404))
                : .respond(HTTPResponse(status: 200, headers: ["ETag": "\"abc\""], body: .bytes([1, 2, 3])))
        case "/bucket/throttled":
            return throttledPuts.add(1, ordering: .relaxed).newValue <= 2 ? error(503, "SlowDown", "Please reduce your request rate.")
                : .respond(HTTPResponse(status: 200, headers: ["ETag": "\"abc\""]))
        case "/bucket/bad-signature":
            return error(403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
        case "/bucket/whole", "/bucket/multipart":
            // The same checksum header, on a single-PUT object and on a multipart one.
            let etag = request.path.hasSuffix("whole") ? "\"5d41402abc4b2a76b9719d911017c592\"" : "\"0123456789abcdef-3\""
            return .respond(HTTPResponse(status: 200, headers: [
                "ETag": etag, "x-amz-checksum-sha256": "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=",
            ], body: .bytes(Array("hello".utf8))))
        case "/bucket/skewed":
            return error(403, "RequestTimeTooSkewed", "The difference between the request time and the current time is too large.")
        default:
            return error(404, "NoSuchKey", "The specified key does not exist.")
        }
    }
}

@Suite struct S3FailureTests {
    func withServer(_ body: (S3Client, MisbehavingS3) async throws -> Void) async throws {
        let handler = MisbehavingS3()
        let server = HTTPServer(configuration: .init(), handler: handler)
        try server.start()
        defer { server.stop() }
        let configuration = S3Configuration(endpoint: URL(string: server.baseURL)!, credentials: S3Credentials(accessKeyID: "K", secretAccessKey: "topsecret-value"),
                                            addressing: .path)
        let client = S3Client(configuration: configuration, transport: makeDefaultTransport())
        try await body(client, handler)
    }

    /// The client sends once; the engine retries the throttled PUT with its backoff.
    @Test func throttlingIsReportedOnceAndRetriedByTheEngine() async throws {
        try await withServer { client, handler in
            await #expect { try await client.putObject(bucket: "bucket", key: "throttled", body: .bytes([1, 2, 3])) } throws: { error in
                (error as? S3Error)?.code == "SlowDown"
            }
            #expect(handler.requests.load(ordering: .relaxed) == 1)
            let scratch = try TempFolder("s3test"), directory = scratch.url
            let file = directory.appendingPathComponent("three")
            try Data([1, 2, 3]).write(to: file)
            let uploader = Uploader(remote: S3Remote(client: client, location: S3Location(bucket: "bucket", prefix: "")),
                                    store: ResumeFileStore(directory: directory), options: UploadOptions(retry: .immediate))
            let result = try await uploader.run(try await BlobUploadSource.file(file.path), as: "throttled") { _ in }
            #expect(result.etag == "\"abc\"")
            #expect(handler.throttledPuts.load(ordering: .relaxed) == 3)
        }
    }

    @Test func badSignatureFailsAtOnceWithAClearMessage() async throws {
        try await withServer { client, handler in
            do {
                try await client.putObject(bucket: "bucket", key: "bad-signature", body: .bytes([1]))
                Issue.record("rejected signature reported success")
            } catch let error as S3Error {
                #expect(error.description == "S3 SignatureDoesNotMatch (HTTP 403) for s3://bucket/bad-signature: the secret access key does not match the access key ID (The request signature we calculated does not match the signature you provided.)")
                #expect(!error.description.contains("topsecret"))
            }
            #expect(handler.requests.load(ordering: .relaxed) == 1)
        }
    }

    @Test func wholeObjectChecksumsOnly() async throws {
        try await withServer { client, _ in
            let whole = try await client.statObject(bucket: "bucket", key: "whole")
            #expect(whole.info.length == 5)
            #expect(whole.sha256 == Digest.hash(.sha256, Array("hello".utf8)))
            #expect(try await client.statObject(bucket: "bucket", key: "multipart").sha256 == nil)
        }
    }

    @Test func clockSkewSaysSo() async throws {
        try await withServer { client, _ in
            do {
                _ = try await client.headObject(bucket: "bucket", key: "skewed")
                Issue.record("skewed request reported success")
            } catch let error as S3Error {
                // HEAD answers carry no error document: the status alone says 403.
                #expect(error.code == "AccessDenied")
            }
            do {
                _ = try await client.getObject(bucket: "bucket", key: "skewed")
                Issue.record("skewed request reported success")
            } catch let error as S3Error {
                #expect(error.code == "RequestTimeTooSkewed")
                #expect(error.description.contains("this machine's clock differs too much from the server's"))
            }
        }
    }
}

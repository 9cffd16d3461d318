import Foundation
import SkyliftHTTPClient
@testable import SkyliftRemotes
import SkyliftCore
import TestPrograms
import TestProbes
@testable import SkyliftS3

/// The S3 endpoint the S3 tests talk to: moto in server mode or a one-node Ceph RGW (see `S3Peer`), each
/// started on first use and gone when the test process exits; or, with `SKYLIFT_S3_TEST_ENDPOINT` set, that
/// endpoint (in place of moto) with credentials from the usual AWS environment variables and files.
///
/// moto runs with IAM auth on, so it checks signatures and keys. It does not check or list part checksums,
/// returns no checksum headers, never throttles, and keeps everything in memory. RGW checks signatures,
/// signed payload hashes and Content-MD5, but ignores `x-amz-checksum-sha256`.
final class S3TestServer: Sendable {
    let peer: S3Peer
    let configuration: S3Configuration
    private let service: S3Service?

    /// The server for this test process. `verifying` (the default) checks signatures; moto's checker
    /// rejects correct signatures (boto3's too) of keys with non-ASCII or `+&=?` characters and of query
    /// values with `/` or spaces (listing prefixes), so tests of those use the lenient server, and
    /// `S3ConfigurationTests` compares such signatures with botocore's. RGW always checks.
    static func get(_ peer: S3Peer = .moto, verifying: Bool = true) async throws -> S3TestServer {
        try await Registry.shared.server(peer, verifying: peer == .rgw || verifying)
    }

    /// Starts each kind of server once. Starting blocks (process launch, the service's start-up), so it runs
    /// on a thread of its own rather than on the few threads of the Swift concurrency pool the tests share.
    private actor Registry {
        static let shared = Registry()
        private var servers: [String: Task<S3TestServer, any Error>] = [:]

        func server(_ peer: S3Peer, verifying: Bool) async throws -> S3TestServer {
            let name = "\(peer) \(verifying)"
            if let starting = servers[name] { return try await starting.value }
            let starting = Task {
                try await withCheckedThrowingContinuation { continuation in
                    Thread { continuation.resume(with: Result { try S3TestServer(peer, verifying: verifying) }) }.start()
                }
            }
            servers[name] = starting
            return try await starting.value
        }
    }

    private init(_ peer: S3Peer, verifying: Bool) throws {
        self.peer = peer
        if peer == .moto, let endpoint = ProcessInfo.processInfo.environment["SKYLIFT_S3_TEST_ENDPOINT"], let url = URL(string: endpoint) {
            configuration = try S3Configuration.resolve(endpoint: url, addressing: .path)
            service = nil
            return
        }
        let service = try S3Service(peer, verifying: verifying)
        self.service = service
        configuration = S3Configuration(endpoint: service.endpoint, region: "us-east-1",
                                        credentials: S3Credentials(accessKeyID: service.accessKeyID, secretAccessKey: service.secretAccessKey),
                                        addressing: .path)
    }

    func client() -> S3Client {
        S3Client(configuration: configuration, transport: makeDefaultTransport(), timeout: 30)
    }

    /// A new empty bucket for one test.
    func makeBucket() async throws -> String {
        let name = "skylift-\(UUID().uuidString.lowercased().prefix(13))"
        try await client().createBucket(name)
        return name
    }
}

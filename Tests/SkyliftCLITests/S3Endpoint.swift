import Foundation
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore
import TestPrograms
import TestProbes
import SkyliftS3

/// The S3 service the CLI's S3 tests use (see `S3Peer`): moto in server mode with signature checking on (an
/// IAM user and key are made first), or a one-node Ceph RGW, each started once per test process and gone when
/// it exits; or, with `SKYLIFT_S3_TEST_ENDPOINT` set, that endpoint (in place of moto) with the usual AWS
/// credentials from the environment.
final class S3Endpoint: Sendable {
    /// Started on first use; Swift runs a static's initializer once, whichever thread asks first.
    static let shared = Result { try S3Endpoint(.moto, verifying: true) }
    /// One that checks no signatures: moto's checker rejects correct signatures of keys with spaces or
    /// non-ASCII characters (boto3's too), so tests of such keys use this one.
    static let lenient = Result { try S3Endpoint(.moto, verifying: false) }
    /// A one-node Ceph RGW.
    static let rgw = Result { try S3Endpoint(.rgw, verifying: true) }

    /// The service for `peer`.
    static func of(_ peer: S3Peer) throws -> S3Endpoint {
        switch peer {
        case .moto: try shared.get()
        case .rgw: try rgw.get()
        }
    }

    let endpoint: URL
    let accessKeyID: String
    let secretAccessKey: String
    private let service: S3Service?

    private init(_ peer: S3Peer, verifying: Bool) throws {
        let environment = ProcessInfo.processInfo.environment
        if peer == .moto, let text = environment["SKYLIFT_S3_TEST_ENDPOINT"], let url = URL(string: text),
           let id = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"] {
            (endpoint, accessKeyID, secretAccessKey, service) = (url, id, secret, nil)
            return
        }
        let service = try S3Service(peer, verifying: verifying)
        (endpoint, accessKeyID, secretAccessKey, self.service) = (service.endpoint, service.accessKeyID, service.secretAccessKey, service)
    }

    /// The environment a `skylift` child needs to reach this service: credentials and endpoint the AWS way.
    func environment(home: URL, secret: String? = nil) -> [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": home.path, "AWS_ACCESS_KEY_ID": accessKeyID,
         "AWS_SECRET_ACCESS_KEY": secret ?? secretAccessKey, "AWS_ENDPOINT_URL": endpoint.absoluteString, "AWS_REGION": "us-east-1"]
    }

    /// Credentials only through a profile in `home/.aws/credentials` (`AWS_PROFILE`), endpoint from none of
    /// the environment: the command must be given `--s3-endpoint`.
    func profileEnvironment(home: URL) throws -> [String: String] {
        let aws = home.appendingPathComponent(".aws")
        try FileManager.default.createDirectory(at: aws, withIntermediateDirectories: true)
        try "[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n\n[media]\naws_access_key_id = \(accessKeyID)\naws_secret_access_key = \(secretAccessKey)\n"
            .write(to: aws.appendingPathComponent("credentials"), atomically: true, encoding: .utf8)
        return ["PATH": "/usr/bin:/bin", "HOME": home.path, "AWS_PROFILE": "media"]
    }

    func client() -> S3Client {
        S3Client(configuration: S3Configuration(endpoint: endpoint, credentials: S3Credentials(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey),
                                                addressing: .path),
                 transport: makeDefaultTransport(), timeout: 30)
    }

    /// A new empty bucket for one test.
    func makeBucket() async throws -> String {
        let name = "cli-\(UUID().uuidString.lowercased().prefix(13))"
        try await client().createBucket(name)
        return name
    }

    /// The whole object, for comparing with what was sent (test files are a few MiB).
    func object(_ bucket: String, _ key: String, range: ByteRange? = nil) async throws -> [UInt8] {
        let response = try await client().getObject(bucket: bucket, key: key, range: range)
        return try await response.collect(upTo: 64 << 20)
    }
}

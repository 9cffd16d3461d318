import Foundation
import HTTPClient
import Remotes
import SkyliftCore
import TestPrograms

/// The S3 service the CLI's S3 tests use: moto in server mode on a free loopback port, with signature
/// checking on (an IAM user and key are made first), started once per test process and gone when it exits;
/// or, with `SKYLIFT_S3_TEST_ENDPOINT` set, that endpoint with the usual AWS credentials from the environment.
final class S3Endpoint: Sendable {
    /// Started on first use; Swift runs a static's initializer once, whichever thread asks first.
    static let shared = Result { try S3Endpoint(verifying: true) }
    /// One that checks no signatures: moto's checker rejects correct signatures of keys with spaces or
    /// non-ASCII characters (boto3's too), so tests of such keys use this one.
    static let lenient = Result { try S3Endpoint(verifying: false) }

    let endpoint: URL
    let accessKeyID: String
    let secretAccessKey: String
    private let process: Process?

    private init(verifying: Bool) throws {
        let environment = ProcessInfo.processInfo.environment
        if let text = environment["SKYLIFT_S3_TEST_ENDPOINT"], let url = URL(string: text),
           let id = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"] {
            (endpoint, accessKeyID, secretAccessKey, process) = (url, id, secret, nil)
            return
        }
        // scripts/moto-s3.py; moto exits when its stdin closes.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/moto-s3.py").standardizedFileURL
        let process = Process()
        process.executableURL = try TestPrograms.python("moto", "boto3", "flask_cors")
        process.arguments = [script.path, verifying ? "verifying" : "lenient"]
        let output = Pipe()
        process.standardInput = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        var line = ""
        while !line.contains("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            line += String(decoding: data, as: UTF8.self)
        }
        let words = line.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard words.count == 4, words[0] == "READY", let port = Int(words[1]), let url = URL(string: "http://127.0.0.1:\(port)") else {
            throw S3Error.configuration("moto did not start (pip install 'moto[server]', see scripts/pip-deps.sh)")
        }
        (endpoint, accessKeyID, secretAccessKey, self.process) = (url, words[2], words[3], process)
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
                 transport: makeDefaultTransport(), retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 0.05), timeout: 30)
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

import Foundation
import HTTPClient
@testable import Remotes
import SkyliftCore
import TestPrograms

/// The S3 endpoint the S3 tests talk to: moto in server mode on a free loopback port, started on first use
/// and gone when the test process exits; or, with `SKYLIFT_S3_TEST_ENDPOINT` set, that endpoint with
/// credentials from the usual AWS environment variables and files.
///
/// moto runs with IAM auth on, so it checks signatures and keys. It does not check or list part checksums,
/// returns no checksum headers, never throttles, and keeps everything in memory.
final class S3TestServer: Sendable {
    let configuration: S3Configuration
    private let process: Process?

    /// The server for this test process. `verifying` (the default) checks signatures; moto's checker
    /// rejects correct signatures (boto3's too) of keys with non-ASCII or `+&=?` characters and of query
    /// values with `/` or spaces (listing prefixes), so tests of those use the lenient server, and
    /// `S3ConfigurationTests` compares such signatures with botocore's.
    static func get(verifying: Bool = true) async throws -> S3TestServer {
        try await Registry.shared.server(verifying: verifying)
    }

    /// Starts each kind of server once. Starting blocks (process launch, moto's start-up), so it runs on a
    /// thread of its own rather than on the few threads of the Swift concurrency pool the tests share.
    private actor Registry {
        static let shared = Registry()
        private var servers: [Bool: Task<S3TestServer, any Error>] = [:]

        func server(verifying: Bool) async throws -> S3TestServer {
            if let starting = servers[verifying] { return try await starting.value }
            let starting = Task {
                try await withCheckedThrowingContinuation { continuation in
                    Thread { continuation.resume(with: Result { try S3TestServer(verifying: verifying) }) }.start()
                }
            }
            servers[verifying] = starting
            return try await starting.value
        }
    }

    private init(verifying: Bool) throws {
        if let endpoint = ProcessInfo.processInfo.environment["SKYLIFT_S3_TEST_ENDPOINT"], let url = URL(string: endpoint) {
            configuration = try S3Configuration.resolve(endpoint: url, addressing: .path)
            process = nil
            return
        }
        // scripts/moto-s3.py: moto exits when its stdin closes, i.e. when this test process ends however it
        // ends. Verifying: moto checks every request's SigV4 signature, so a signing mistake fails the tests.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/moto-s3.py").standardizedFileURL
        let process = Process()
        process.executableURL = try TestPrograms.python("moto", "boto3", "flask_cors")
        process.arguments = [script.path, verifying ? "verifying" : "lenient"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        var line = ""
        while !line.contains("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            line += String(decoding: data, as: UTF8.self)
        }
        let words = line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").map(String.init)
        guard words.count == 4, words[0] == "READY", let port = Int(words[1]) else {
            throw S3Error.configuration("moto server did not start (is `moto[server]` installed? see scripts/pip-deps.sh): \(line)")
        }
        self.process = process
        configuration = S3Configuration(endpoint: URL(string: "http://127.0.0.1:\(port)")!, region: "us-east-1",
                                        credentials: S3Credentials(accessKeyID: words[2], secretAccessKey: words[3]),
                                        addressing: .path)
        _ = input // kept open by the process object's standardInput until exit
    }

    func client() -> S3Client {
        S3Client(configuration: configuration, transport: makeDefaultTransport(),
                 retry: RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.05), timeout: 30)
    }

    /// A new empty bucket for one test.
    func makeBucket() async throws -> String {
        let name = "skylift-\(UUID().uuidString.lowercased().prefix(13))"
        try await client().createBucket(name)
        return name
    }
}


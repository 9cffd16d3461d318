import Foundation
import HTTPClient
@testable import Remotes
import SkyliftCore
import Synchronization

/// The S3 endpoint the S3 tests talk to: moto in server mode on a free loopback port, started on first use
/// and gone when the test process exits; or, with `SKYLIFT_S3_TEST_ENDPOINT` set, that endpoint with
/// credentials from the usual AWS environment variables and files.
///
/// moto does not check signatures, credentials or part checksums (it records them), and keeps everything in
/// memory; the signing tests compare against botocore's signer instead.
final class S3TestServer: Sendable {
    let configuration: S3Configuration
    private let process: Process?

    private static let shared = Mutex<Result<S3TestServer, any Error>?>(nil)

    static func get() throws -> S3TestServer {
        try shared.withLock { state in
            if let state { return try state.get() }
            let result = Result { try S3TestServer() }
            state = result
            return try result.get()
        }
    }

    private init() throws {
        if let endpoint = ProcessInfo.processInfo.environment["SKYLIFT_S3_TEST_ENDPOINT"], let url = URL(string: endpoint) {
            configuration = try S3Configuration.resolve(endpoint: url, addressing: .path)
            process = nil
            return
        }
        // moto exits when its stdin closes, i.e. when this test process ends however it ends.
        let script = """
        import sys, os
        from moto.server import ThreadedMotoServer
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
        print("READY", server.get_host_and_port()[1], flush=True)
        sys.stdin.read()
        os._exit(0)
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
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
        let words = line.split(separator: " ")
        guard words.count == 2, words[0] == "READY", let port = Int(words[1].trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw S3Error.configuration("moto server did not start (is `moto[server]` installed? see scripts/pip-deps.sh): \(line)")
        }
        self.process = process
        // moto accepts any credentials; these only have to be well-formed.
        configuration = S3Configuration(endpoint: URL(string: "http://127.0.0.1:\(port)")!, region: "us-east-1",
                                        credentials: S3Credentials(accessKeyID: "AKIDSKYLIFTTEST", secretAccessKey: "skylift-test-secret"),
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


import SkyliftBlobStream
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SkyliftHashing
import SkyliftHTTPClient
@testable import SkyliftRemotes
import SkyliftCore
import Testing
import TestProbes
import SkyliftUploads
@testable import SkyliftS3

/// Settings the killed child upload reads from its environment.
private enum ChildJob {
    static let variable = "SKYLIFT_S3_KILL_CHILD"

    struct Settings: Codable {
        var endpoint: String
        var accessKeyID: String
        var secretAccessKey: String
        var bucket: String
        var key: String
        var file: String
        var stateDirectory: String
    }
}

/// A file source that sleeps on every read, so the upload is still running when the test kills it.
private final class SlowFileSource: BlobSource {
    let file: FileSource
    init(path: String) { file = FileSource(path: path) }
    var name: String { file.name }
    func open(completion: @escaping @Sendable (Result<BlobInfo, any Error>) -> Void) { file.open(completion: completion) }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        Thread.sleep(forTimeInterval: 0.01)
        return try file.read(into: buffer, at: offset)
    }
    func close() { file.close() }
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct S3KillTests {
    /// Runs only inside the child process that `uploadResumesAfterTheClientIsKilled` starts and kills: the upload
    /// engine with three parts in flight.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[ChildJob.variable] != nil))
    func childUploadThatGetsKilled() async throws {
        let json = try #require(ProcessInfo.processInfo.environment[ChildJob.variable])
        let job = try JSONDecoder().decode(ChildJob.Settings.self, from: Data(json.utf8))
        let configuration = S3Configuration(endpoint: try #require(URL(string: job.endpoint)),
                                            credentials: S3Credentials(accessKeyID: job.accessKeyID, secretAccessKey: job.secretAccessKey),
                                            addressing: .path)
        let remote = S3Remote(client: S3Client(configuration: configuration, transport: makeDefaultTransport()),
                              location: S3Location(bucket: job.bucket, prefix: ""), partLength: 5 << 20)
        let path = job.file
        let source = try await BlobUploadSource(name: path) { _ in SlowFileSource(path: path) }
        // Three parts in flight: the kill lands while several are on the wire.
        _ = try await Uploader(remote: remote, store: ResumeFileStore(directory: URL(fileURLWithPath: job.stateDirectory)),
                               options: UploadOptions(parts: 3)).run(source, as: job.key) { _ in }
        Issue.record("the child upload finished before it was killed")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment[ChildJob.variable] == nil), arguments: S3Peer.allCases)
    func uploadResumesAfterTheClientIsKilled(peer: S3Peer) async throws {
        let server = try await S3TestServer.get(peer)
        let client = server.client()
        let bucket = try await server.makeBucket()
        let scratch = try TempFolder("s3test"), directory = scratch.url
        let (file, sha256) = try randomFile(in: directory, size: 40 << 20)
        let state = directory.appendingPathComponent("state")
        let settings = ChildJob.Settings(endpoint: server.configuration.endpoint.absoluteString,
                                         accessKeyID: server.configuration.credentials.accessKeyID,
                                         secretAccessKey: server.configuration.credentials.secretAccessKey,
                                         bucket: bucket, key: "killed.mov", file: file.path, stateDirectory: state.path)

        // The child is this test binary, running only the child test.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--testing-library", "swift-testing", "--filter", "childUploadThatGetsKilled"]
        var environment = ProcessInfo.processInfo.environment
        environment[ChildJob.variable] = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
        child.environment = environment
        child.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        child.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try child.run()
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }

        // Kill it -9 once the service holds two parts.
        let store = ResumeFileStore(directory: state)
        var stored = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while stored < 2 && child.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            if let id = store.load(source: file.path, destination: "s3://\(bucket)/killed.mov")?.token {
                stored = try await client.listParts(bucket: bucket, key: "killed.mov", uploadId: id).count
            }
        }
        #expect(child.isRunning)
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(stored >= 2)

        // Run again: only the parts the service lacks go up, three at a time.
        let remote = S3Remote(client: client, location: S3Location(bucket: bucket, prefix: ""), partLength: 5 << 20)
        let result = try await Uploader(remote: remote, store: store, options: UploadOptions(parts: 3))
            .run(try await BlobUploadSource.file(file.path), as: "killed.mov") { _ in }
        #expect(result.resumedFrom >= 10 << 20)
        #expect(result.resumedFrom % (5 << 20) == 0)
        #expect(result.bytesSent == Int64(40 << 20) - result.resumedFrom)
        let object = try await client.getObject(bucket: bucket, key: "killed.mov").collect(upTo: 41 << 20)
        #expect(Digest.hash(.sha256, object) == sha256)
    }
}

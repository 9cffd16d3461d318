import Foundation
import SkyliftHashing
import SkyliftHTTPServer
import SkyliftRemotes
import SkyliftCore
import SkyliftStorageServer
import Synchronization
import TestProbes
import Testing
@testable import SkyliftUploads

/// A real StorageServer over a temp root.
final class EmbeddedCloud: Sendable {
    static let token = "uploads-test-token"
    private let scratch: TempFolder
    let root: URL
    private let server = Mutex<StorageServer?>(nil)

    init(token: String? = EmbeddedCloud.token) throws {
        scratch = try TempFolder("cloud")
        root = scratch.url
        try start(token: token)
    }

    func start(token: String? = EmbeddedCloud.token, port: UInt16 = 0) throws {
        let s = try StorageServer(configuration: StorageConfiguration(root: root, token: token), port: port)
        try s.start()
        server.withLock { $0 = s }
    }

    func stop() { server.withLock { $0?.stop(); $0 = nil } }
    var port: UInt16 { server.withLock { $0?.port ?? 0 } }
    var base: String { server.withLock { $0?.baseURL ?? "" } }
    func folder(_ path: String) -> URL { URL(string: base + "/dav/" + path)! }
    func stored(_ relative: String) -> [UInt8]? { (try? Data(contentsOf: root.appendingPathComponent(relative))).map(Array.init) }

    /// Waits (at most 30 s) until no request is in progress: a body a client cut off is only kept, and its
    /// upload's claim let go, once the server has seen the connection end, which a busy machine may delay.
    func waitUntilIdle() throws {
        let deadline = Date().addingTimeInterval(30)
        while (server.withLock { $0?.connectionsBusy ?? 0 }) > 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let busy = server.withLock { $0?.connectionsBusy ?? 0 }
        try #require(busy == 0, "\(busy) requests still in progress after 30 s")
    }

    deinit { server.withLock { $0?.stop() } }
}

@Suite struct EmbeddedServerTests {
    func uploader(_ cloud: EmbeddedCloud, folder: String, dir: TempFolder, token: String? = EmbeddedCloud.token,
                  options: UploadOptions = fastOptions()) async throws -> Uploader {
        let remote = try await RemoteDiscovery(http: remoteHTTP(token: token)).discover(cloud.folder(folder))
        return Uploader(remote: remote, store: ResumeFileStore(directory: dir.url.appendingPathComponent("state")), options: options)
    }

    @Test func uploadsIntoMissingFoldersAndConfirms() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        let file = try dir.file("in/clip.mp4", count: 300_000, seed: 7)
        let up = try await uploader(cloud, folder: "photos/trip/", dir: dir, options: fastOptions(verify: true))
        let (result, events) = await runCollecting(up.start(try await BlobUploadSource.file(file.path), as: "day 1/clip.mp4"))
        let done = try result.get()
        #expect(done.verified && done.length == 300_000 && !done.skipped)
        #expect(cloud.stored("photos/trip/day 1/clip.mp4") == testBytes(300_000, seed: 7))
        guard case .started = events.first, case .done = events.last else {
            Issue.record("events out of order: \(events)")
            return
        }
        // Nothing but the object is left in the folder (no temporary part files).
        let names = try FileManager.default.contentsOfDirectory(atPath: cloud.root.appendingPathComponent("photos/trip/day 1").path)
        #expect(names == ["clip.mp4"])
    }

    @Test func skipsWhatIsAlreadyThereUnlessForced() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        let file = try dir.file("a.bin", count: 50_000)
        let source = try await BlobUploadSource.file(file.path)
        let up = try await uploader(cloud, folder: "x/", dir: dir)
        _ = try await up.start(source, as: "a.bin").result()
        let (again, events) = await runCollecting(up.start(source, as: "a.bin"))
        #expect(try again.get().skipped)
        #expect(events.contains { $0.skipReason != nil })
        let forced = try await uploader(cloud, folder: "x/", dir: dir, options: fastOptions(force: true))
        let r = try await forced.start(source, as: "a.bin").result()
        #expect(!r.skipped && r.bytesSent == 50_000)
        // Different content of the same size at the destination is not skipped.
        try Data(testBytes(50_000, seed: 99)).write(to: cloud.root.appendingPathComponent("x/a.bin"))
        let r2 = try await up.start(source, as: "a.bin").result()
        #expect(!r2.skipped)
        #expect(cloud.stored("x/a.bin") == testBytes(50_000, seed: 1))
    }

    @Test func wrongTokenIsNotRetried() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        await #expect { _ = try await uploader(cloud, folder: "x/", dir: dir, token: "wrong") } throws: { error in
            let text = "\(error)"
            return (error as? RemoteError)?.status == 401 && text.contains("--token") && !text.contains("wrong")
        }
    }

    @Test func unreachableHostAndForeignServerAreClearErrors() async throws {
        // A port that was just free: nothing listens there.
        let cloud = try EmbeddedCloud()
        let deadURL = cloud.folder("x/")
        cloud.stop()
        await #expect { _ = try await RemoteDiscovery(http: remoteHTTP()).discover(deadURL) } throws: { error in
            guard case .network = error as? RemoteError else { return false }
            return "\(error)".contains(deadURL.host ?? "?")
        }
        let plain = HTTPServer(configuration: .init(), handler: PlainHandler())
        try plain.start()
        defer { plain.stop() }
        let url = URL(string: "\(plain.baseURL)/folder/")!
        await #expect { _ = try await RemoteDiscovery(http: remoteHTTP()).discover(url) } throws: { error in
            "\(error)" == "\(url.absoluteString): speaks neither tus nor WebDAV"
        }
    }
}

/// A web server that speaks plain HTTP only.
final class PlainHandler: HTTPHandler {
    func head(_ request: HTTPRequest) -> HTTPHeadDecision { .respond(HTTPResponse(status: 200, headers: ["Allow": "GET, HEAD, OPTIONS"])) }
}

@Suite struct EmbeddedServerMoreTests {
    func uploader(_ cloud: EmbeddedCloud, folder: String, dir: TempFolder, options: UploadOptions = fastOptions()) async throws -> Uploader {
        let remote = try await RemoteDiscovery(http: remoteHTTP(token: EmbeddedCloud.token)).discover(cloud.folder(folder))
        return Uploader(remote: remote, store: ResumeFileStore(directory: dir.url.appendingPathComponent("state")), options: options)
    }

    @Test func changedSourceStartsOverAndSaysSo() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        let file = try dir.file("v.bin", count: 400_000, seed: 1)
        let up = try await uploader(cloud, folder: "v/", dir: dir, options: fastOptions(partLength: 100_000))
        let first = try await BlobUploadSource.file(file.path)
        await #expect(throws: UploadError.self) { _ = try await up.start(StoppingSource(base: first, limit: 200_000), as: "v.bin").result() }
        try Data(testBytes(400_000, seed: 2)).write(to: file)
        let (result, events) = await runCollecting(up.start(try await BlobUploadSource.file(file.path), as: "v.bin"))
        let done = try result.get()
        #expect(done.resumedFrom == 0 && done.bytesSent == 400_000)
        #expect(events.contains { $0.restartReason == "source changed since the last attempt; starting over" })
        #expect(cloud.stored("v/v.bin") == testBytes(400_000, seed: 2))
    }

    @Test func batchRunsInParallelAndOneFailureStopsNoOther() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        let paths = try (0..<4).map { try dir.file("f\($0).bin", count: 120_000, seed: UInt64($0 + 10)).path }
        let up = try await uploader(cloud, folder: "batch/", dir: dir)
        var items = paths.map { p in UploadItem(label: p, name: URL(fileURLWithPath: p).lastPathComponent) { try await BlobUploadSource.file(p) } }
        let missing = dir.url.appendingPathComponent("gone.bin").path
        items.insert(UploadItem(label: missing, name: "gone.bin") { try await BlobUploadSource.file(missing) }, at: 1)
        let running = Mutex((now: Set<Int>(), peak: 0))
        let results = await up.uploadAll(items, jobs: 2) { index, event in
            running.withLock { r in
                switch event {
                case .started: r.now.insert(index); r.peak = max(r.peak, r.now.count)
                case .done, .failed, .skipped: r.now.remove(index)
                default: break
                }
            }
        }
        #expect((1...2).contains(running.withLock { $0.peak }))
        guard case let .failure(e) = results[1], case .sourceMissing = e else {
            Issue.record("expected a missing-source failure, got \(results[1])")
            return
        }
        for (i, p) in paths.enumerated() {
            #expect(cloud.stored("batch/" + URL(fileURLWithPath: p).lastPathComponent) == testBytes(120_000, seed: UInt64(i + 10)))
        }
        #expect(results.filter { if case .success = $0 { return true }; return false }.count == 4)
    }

    @Test func destinationThatIsAFileIsRefused() async throws {
        let cloud = try EmbeddedCloud()
        try Data("x".utf8).write(to: cloud.root.appendingPathComponent("notes.txt"))
        let url = cloud.folder("notes.txt")
        await #expect { _ = try await RemoteDiscovery(http: remoteHTTP(token: EmbeddedCloud.token)).discover(url) } throws: { error in
            "\(error)" == "\(url.absoluteString): is a file, not a folder"
        }
    }
}

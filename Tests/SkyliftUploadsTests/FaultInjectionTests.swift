import Foundation
import SkyliftHashing
import SkyliftHTTPServer
import SkyliftRemotes
import SkyliftCore
import TestProbes
import Testing
@testable import SkyliftUploads

/// The engine against a tus server that misbehaves on purpose: 460, 409, connections cut mid-PATCH.
@Suite struct FaultInjectionTests {
    func upload(_ server: FaultyTusServer, size: Int, partLength: Int64 = 64 << 10, dir: TempFolder) async throws
        -> (Result<UploadResult, any Error>, [UploadEvent], [UInt8]) {
        let http = HTTPServer(configuration: .init(), handler: server)
        try http.start()
        defer { http.stop() }
        let file = try dir.file("clip.bin", count: size)
        let remote = try await RemoteDiscovery(http: remoteHTTP()).discover(URL(string: "\(http.baseURL)/files/")!)
        let uploader = Uploader(remote: remote, store: ResumeFileStore(directory: dir.url.appendingPathComponent("state")),
                                options: fastOptions(partLength: partLength))
        let source = try await BlobUploadSource.file(file.path)
        let (result, events) = await runCollecting(uploader.start(source, as: "clip.bin"))
        return (result, events, testBytes(size, seed: 1))
    }

    @Test func checksumRejectionResendsThePart() async throws {
        let dir = try TempFolder("uploads")
        let server = FaultyTusServer(faults: .init(checksumFailures: [2]))
        let (result, events, bytes) = try await upload(server, size: 200_000, dir: dir)
        let done = try result.get()
        #expect(server.completed.first?.bytes == bytes)
        #expect(events.contains { $0.isRetried })
        // sha256 is preferred when offered; every PATCH carried it.
        let seen = server.state.withLock { $0.checksumsSeen }
        #expect(!seen.isEmpty && seen.allSatisfy { $0 == "sha256" })
        // The rejected 64 KiB part went twice; nothing else did.
        #expect(done.bytesSent == 200_000 + 65_536)
    }

    /// Some tus servers refuse a creation without `filetype` (browser clients send it).
    @Test func aServerThatNeedsTheFileTypeAcceptsTheUpload() async throws {
        let dir = try TempFolder("uploads")
        let server = FaultyTusServer(requiredMetadata: ["filename", "filetype"])
        let http = HTTPServer(configuration: .init(), handler: server)
        try http.start()
        defer { http.stop() }
        let file = try dir.file("clip.mp4", count: 70_000)
        let remote = try await RemoteDiscovery(http: remoteHTTP()).discover(URL(string: "\(http.baseURL)/files/")!)
        let uploader = Uploader(remote: remote, store: ResumeFileStore(directory: dir.url.appendingPathComponent("state")), options: fastOptions())
        let (result, _) = await runCollecting(uploader.start(try await BlobUploadSource.file(file.path), as: "trip/clip.mp4"))
        _ = try result.get()
        let stored = try #require(server.completed.first)
        #expect(stored.bytes == testBytes(70_000, seed: 1))
        #expect(TusProtocol.parseMetadata(stored.metadata) == ["filename": "clip.mp4", "filetype": "video/mp4", "relativePath": "trip/clip.mp4"])
    }

    @Test func conflictAsksForTheOffsetAgain() async throws {
        let dir = try TempFolder("uploads")
        let server = FaultyTusServer(faults: .init(conflicts: [1, 3]), checksumAlgorithms: "sha1")
        let (result, events, bytes) = try await upload(server, size: 150_000, dir: dir)
        _ = try result.get()
        #expect(server.completed.first?.bytes == bytes)
        #expect(events.filter(\.isRetried).count == 2)
        #expect(server.state.withLock { $0.checksumsSeen }.allSatisfy { $0 == "sha1" })
    }

    @Test func cutConnectionsContinueFromTheServerOffset() async throws {
        let dir = try TempFolder("uploads")
        // PATCH 1 keeps 10 000 bytes then the server hangs up; PATCH 3 likewise after 30 000.
        let server = FaultyTusServer(faults: .init(cuts: [1: 10_000, 3: 30_000]), checksumAlgorithms: nil)
        let (result, events, bytes) = try await upload(server, size: 300_000, dir: dir)
        let done = try result.get()
        #expect(server.completed.first?.bytes == bytes)
        #expect(events.filter(\.isRetried).count == 2)
        // Server kept what it confirmed: what was re-sent is bounded by the cut parts.
        #expect(done.bytesSent <= 300_000 + 2 * 65_536)
    }

    @Test func retriesGiveUpWithAClearError() async throws {
        let dir = try TempFolder("uploads")
        let server = FaultyTusServer(faults: .init(checksumFailures: Set(1...20)))
        let (result, _, _) = try await upload(server, size: 10_000, dir: dir)
        #expect(throws: UploadError.self) { try result.get() }
        if case let .failure(e) = result {
            #expect("\(e)".contains("gave up after 8 attempts"))
            #expect("\(e)".contains("clip.bin"))
        }
    }
}

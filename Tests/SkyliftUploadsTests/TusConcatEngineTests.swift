import Foundation
import SkyliftRemotes
import SkyliftCore
import Synchronization
import TestProbes
import Testing
@testable import SkyliftUploads

/// The engine with tus partial uploads (`UploadOptions.tusPartials`) against a real StorageServer: every part's
/// body cut short continues, in the next run, from its own partial upload's offset, sending only what is missing.
@Suite struct TusConcatEngineTests {
    /// A file whose bodies end early at `stops` (absolute offsets), as a crash cuts every part in flight.
    struct CutSource: UploadSource {
        let base: BlobUploadSource
        let stops: [Int64]
        var name: String { base.name }
        var length: Int64 { base.length }
        var identity: String { base.identity }
        func checkUnchanged() async throws { try await base.checkUnchanged() }
        func open(_ range: ByteRange) throws -> InputStream {
            guard let stop = stops.first(where: { $0 > range.offset && $0 < range.end }) else { return try base.open(range) }
            return PartInputStream(base: try base.open(range), limit: stop - range.offset, counter: SentCounter())
        }
    }

    /// Keeps every record the engine saves, besides storing them.
    final class RecordingState: ResumeStore {
        let store: ResumeFileStore
        let tokens = Mutex<[String]>([])
        init(_ store: ResumeFileStore) { self.store = store }
        func load(source: String, destination: String) async -> ResumeRecord? { store.load(source: source, destination: destination) }
        func save(_ record: ResumeRecord) async throws {
            if let token = record.token { tokens.withLock { $0.append(token) } }
            try await store.save(record)
        }
        func remove(source: String, destination: String) async { store.remove(source: source, destination: destination) }
    }

    func uploader(_ cloud: EmbeddedCloud, partials: Int, state: any ResumeStore) async throws -> Uploader {
        let remote = try await RemoteDiscovery(http: remoteHTTP(token: EmbeddedCloud.token), tusPartials: partials).discover(cloud.folder("c/"))
        var options = fastOptions()
        options.tusPartials = partials
        return Uploader(remote: remote, store: state, options: options)
    }

    @Test func cutPartsContinueFromTheirPartialUploadsOffsets() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        let part: Int64 = 6 << 20, block: Int64 = 4 << 20
        let total = Int(3 * part)
        let file = try dir.file("big.bin", count: total, seed: 9)
        let source = try await BlobUploadSource.file(file.path)
        let state = RecordingState(ResumeFileStore(directory: dir.url.appendingPathComponent("state")))
        // Every part's body ends 5 MiB in, again and again: the server keeps each part's first block.
        let cut = CutSource(base: source, stops: (0 ..< 3).map { Int64($0) * part + 5 << 20 })
        let first = try await uploader(cloud, partials: 3, state: state)
        await #expect(throws: UploadError.self) { _ = try await first.start(cut, as: "big.bin").result() }
        let token = try #require(state.tokens.withLock { $0.first })
        #expect(token.hasPrefix("tus-concat \(part) ") && token.split(separator: " ").count == 5, "\(token)")
        #expect(cloud.stored("c/big.bin") == nil)
        try cloud.waitUntilIdle()

        let second = try await uploader(cloud, partials: 3, state: state)
        let (result, events) = await runCollecting(second.start(source, as: "big.bin"))
        let done = try result.get()
        #expect(done.resumedFrom == 3 * block && done.bytesSent == Int64(total) - 3 * block, "\(done)")
        #expect(events.contains { $0.resumedOffset == 3 * block } && !events.contains { $0.restartReason != nil })
        #expect(state.tokens.withLock { Set($0) } == [token], "the second run reattached to the same partial uploads")
        #expect(cloud.stored("c/big.bin") == testBytes(total, seed: 9))
    }

    @Test func onePartialOrASmallFileIsOneStream() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        for (name, count, partials) in [("one.bin", 3 << 20, 1), ("small.bin", 1 << 20, 4)] {
            let file = try dir.file(name, count: count, seed: 5)
            let state = RecordingState(ResumeFileStore(directory: dir.url.appendingPathComponent("state")))
            let up = try await uploader(cloud, partials: partials, state: state)
            let done = try await up.start(try await BlobUploadSource.file(file.path), as: name).result()
            #expect(done.bytesSent == Int64(count))
            #expect(!state.tokens.withLock { $0 }.contains { $0.hasPrefix("tus-concat") }, "\(name)")
            #expect(cloud.stored("c/" + name) == testBytes(count, seed: 5))
        }
    }

    /// The final upload's creation reached the server, which joined the file, but its answer never came back (a
    /// relay drops it) and the request timed out. In the same run the engine asks again, finds the partial
    /// uploads gone, and the file in place with the source's size and SHA-256: done, with nothing sent again and
    /// no second final upload.
    @Test func aLostFinalAnswerIsFoundInPlaceOnTheRetry() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        let total = 6 << 20
        let file = try dir.file("joined.bin", count: total, seed: 4)
        let source = try await BlobUploadSource.file(file.path)
        let relay = try FlipRelay(upstream: cloud.port, holdAfter: "Upload-Concat: final")
        let folder = URL(string: "http://127.0.0.1:\(relay.port)/dav/c/")!
        let remote = try await RemoteDiscovery(http: remoteHTTP(token: EmbeddedCloud.token), tusPartials: 3).discover(folder)
        var options = fastOptions()
        options.tusPartials = 3
        let state = RecordingState(ResumeFileStore(directory: dir.url.appendingPathComponent("state")))
        let uploader = Uploader(remote: remote, store: state, options: options)
        // Once the file is joined, answers pass again: the held one is gone, the retry's come through.
        let joined = Task.detached {
            while !(relay.holding && cloud.stored("c/joined.bin")?.count == total) {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            relay.release()
            return relay.bytesSent
        }
        let result = try await uploader.start(source, as: "joined.bin").result()
        let sentBeforeRetry = try await joined.value
        #expect(result.length == Int64(total))
        #expect(cloud.stored("c/joined.bin") == Array(try Data(contentsOf: file)))
        #expect(relay.bytesSent - sentBeforeRetry < 16 << 10, "\(relay.bytesSent - sentBeforeRetry) bytes sent after the join")
        let tokens = state.tokens.withLock { $0 }
        #expect(Set(tokens.filter { $0.hasPrefix("tus-concat") }).count == 1, "one set of partial uploads: \(tokens)")
    }
}

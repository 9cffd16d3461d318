@testable import SkyliftBlobStream
@testable import SkyliftRemotes
import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftHTTPServer
import SkyliftCore
import SkyliftStorageServer
import Synchronization
import TestProbes
import Testing

@Suite struct HTTPSourceTests {
    let bytes = (0 ..< 1_500_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }

    func withServer(_ faults: ObjectHandler.Faults = .init(),
                    _ body: (ObjectHandler, URL) async throws -> Void) async throws {
        let handler = ObjectHandler(bytes, faults: faults)
        let server = HTTPServer(configuration: .init(), handler: handler)
        try server.start()
        defer { server.stop() }
        try await body(handler, try #require(URL(string: "\(server.baseURL)/obj?sig=hidden")))
    }

    func source(_ url: URL, headers: HTTPHeaders = [:]) -> HTTPSource {
        HTTPSource(url: url, headers: headers, transport: CurlTransport(), retry: .immediate, timeout: 10)
    }

    @Test func streamsTheObjectWithConfiguredHeaders() async throws {
        try await withServer(.init(authorization: "Bearer s3cret")) { handler, url in
            let src = source(url, headers: ["Authorization": "Bearer s3cret"])
            let all = await onThread { () -> ([UInt8], Int) in
                let stream = BlobInputStream(source: src)
                stream.open()
                return drain(stream, readSize: 50_000)
            }
            #expect(all.1 == 0)
            #expect(all.0 == bytes)
            // Probe plus one streaming request: forward reads share a connection.
            #expect(handler.requests.count == 2)
            #expect(handler.requests.last?.headers["If-Match"] == "\"v1\"")
            #expect(handler.requests.last?.headers["If-Range"] == "\"v1\"")
        }
    }

    /// URLSession on Linux opens body streams on its work queue while pool threads may sit in
    /// `dataTask(with:)` waiting for that queue: an open that needs the shared pool then never finishes.
    @Test func opensAndReadsWhileTheSharedPoolIsBlocked() async throws {
        try await withServer { _, url in
            let src = source(url)
            let width = ProcessInfo.processInfo.activeProcessorCount
            let (got, completed) = await onThread { () -> ([UInt8]?, Bool) in
                let started = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                for _ in 0 ..< width {
                    Task.detached {
                        started.signal()
                        release.wait()
                    }
                }
                for _ in 0 ..< width { started.wait() }
                // Every thread of the shared pool is blocked now.
                let finished = DispatchSemaphore(value: 0)
                let got = Mutex<[UInt8]?>(nil)
                Thread {
                    let stream = BlobInputStream(source: src)
                    stream.open()
                    let bytes = drain(stream, readSize: 100_000).bytes
                    got.withLock { $0 = bytes }
                    finished.signal()
                }.start()
                // A hang guard, not a speed limit: the read takes well under a second when it works at all.
                let completed = finished.wait(timeout: .now() + 30) == .success
                for _ in 0 ..< width { release.signal() }
                if !completed { finished.wait() }
                return (got.withLock { $0 }, completed)
            }
            #expect(completed, "the HTTP source waited for the blocked concurrency pool")
            let exact = got == bytes
            #expect(exact)
        }
    }

    @Test func startOffsetAndDigest() async throws {
        try await withServer { _, url in
            let tail = await onThread { () -> [UInt8] in
                let stream = BlobInputStream(source: self.source(url))
                setOffset(stream, 1_000_000)
                stream.open()
                return drain(stream).bytes
            }
            #expect(tail == Array(bytes[1_000_000...]))
            let digest = try await BlobDigest.compute(of: source(url))
            #expect(digest == Digest.hash(.sha256, bytes))
        }
    }

    @Test func reconnectsAfterTheServerCutsTheConnection() async throws {
        try await withServer(.init(cutOnceAfter: 400_000)) { handler, url in
            var got: [UInt8] = []
            for try await chunk in BlobChunks(source: source(url), chunkSize: 64 * 1024) { got += chunk }
            #expect(got == bytes)
            let ranges = handler.requests.compactMap { $0.headers["Range"] }
            #expect(ranges.first == "bytes=0-0")
            #expect(ranges.count == 3)
            // The reconnect asked for the bytes right after the last one that arrived.
            #expect(ranges.last == "bytes=400000-")
        }
    }

    @Test func cloudToCloudCopyThroughURLSession() async throws {
        try await withServer(.init(cutOnceAfter: 700_000)) { _, url in
            let sink = HTTPServer(configuration: .init(), handler: DigestingHandler())
            try sink.start()
            defer { sink.stop() }
            let answer = try await putStream(BlobInputStream(source: source(url)), length: Int64(bytes.count),
                                             to: try #require(URL(string: "\(sink.baseURL)/copy")))
            #expect(answer.status == 201)
            #expect(answer.body == "\(bytes.count) \(Digest.hash(.sha256, bytes).hexString)\n")
        }
    }

    @Test func everyConnectionCutStillYieldsTheExactObject() async throws {
        try await withServer(.init(cutEvery: 250_000)) { handler, url in
            let digest = try await BlobDigest.compute(of: source(url))
            #expect(digest == Digest.hash(.sha256, bytes))
            #expect(handler.requests.count >= 1 + bytes.count / 250_000)
        }
    }

    @Test func aServerThatNeverDeliversGivesUpWithTheURL() async throws {
        try await withServer(.init(cutEvery: 0)) { handler, url in
            await #expect {
                _ = try await BlobDigest.compute(of: source(url))
            } throws: { error in
                guard case let .transport(name, _)? = error as? BlobStreamError else { return false }
                return name == HTTPSource.displayName(url)
            }
            // The probe, then the first try and each retry the policy allows.
            #expect(handler.requests.count == 1 + RetryPolicy.immediate.maxAttempts)
        }
    }

    @Test func changedObjectAfterACutIsAnErrorNotAMix() async throws {
        try await withServer(.init(cutOnceAfter: 400_000, changeOnCut: true)) { _, url in
            var got: [UInt8] = []
            await #expect(throws: BlobStreamError.entityTagChanged(url: HTTPSource.displayName(url))) {
                for try await chunk in BlobChunks(source: source(url), chunkSize: 64 * 1024) { got += chunk }
            }
            #expect(got == Array(bytes[0 ..< got.count]))
            #expect(got.count <= 400_000)
        }
    }

    @Test func serverIgnoringRangeIsReported() async throws {
        try await withServer(.init(ignoreRange: true)) { _, url in
            let src = source(url)
            let (status, streamError) = await onThread { () -> (Stream.Status, BlobStreamError?) in
                let stream = BlobInputStream(source: src)
                stream.open()
                return (stream.streamStatus, stream.streamError as? BlobStreamError)
            }
            #expect(status == .error)
            let error = try #require(streamError)
            #expect(error == .rangeNotSupported(url: HTTPSource.displayName(url)))
            #expect("\(error)".contains("/obj"))
            #expect(!"\(error)".contains("hidden"))
        }
    }

    @Test func missingObjectAndPinnedTag() async throws {
        try await withServer(.init(authorization: "Bearer s3cret")) { _, url in
            let missing = try #require(URL(string: url.absoluteString.replacingOccurrences(of: "/obj", with: "/gone")))
            await #expect(throws: BlobStreamError.httpStatus(url: HTTPSource.displayName(missing), status: 404)) {
                try await source(missing, headers: ["Authorization": "Bearer s3cret"]).open()
            }
            do {
                _ = try await source(url, headers: ["Authorization": "Bearer wrong"]).open()
                Issue.record("open without the right token succeeded")
            } catch {
                #expect(error as? BlobStreamError == .httpStatus(url: HTTPSource.displayName(url), status: 401))
                #expect(!"\(error)".contains("wrong"))
            }
            let pinned = HTTPSource(url: url, headers: ["Authorization": "Bearer s3cret"], transport: CurlTransport(),
                                    expectedEntityTag: "\"v7\"", retry: .immediate)
            await #expect(throws: BlobStreamError.entityTagChanged(url: HTTPSource.displayName(url))) { try await pinned.open() }
        }
    }

    @Test func readsFromTheEmbeddedCloud() async throws {
        let dir = try TempFolder("blobstream")
        let root = dir.url.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data(bytes).write(to: root.appendingPathComponent("clip.bin"))
        let server = try StorageServer(configuration: StorageConfiguration(root: root, token: nil))
        try server.start()
        defer { server.stop() }
        let url = try #require(URL(string: "\(server.baseURL)/dav/clip.bin"))
        let digest = try await BlobDigest.compute(of: source(url), offset: 12_345)
        #expect(digest == Digest.hash(.sha256, bytes[12_345...]))
    }
}

import Foundation
import SkyliftHTTPClient
import SkyliftRangeCache
import SkyliftCore
import Testing

/// Loader behaviour against origins that misbehave in chosen ways.
@Suite struct RangeLoaderOriginTests {
    let key: HTTPHeaders = [ScriptedOrigin.requiredHeader.0: ScriptedOrigin.requiredHeader.1]

    @Test func originIgnoringRangeIsSkippedNotFailed() async throws {
        let data = patternBytes(900_000, seed: 20)
        let origin = try ScriptedOrigin(bytes: data, script: .init(ignoreRange: true))
        let f = try LoaderFixture(headers: key)
        #expect(try await f.read(origin.url, ByteRange(offset: 500_000, length: 300_000)) == Array(data[500_000 ..< 800_000]))
        #expect(try await f.read(origin.url, ByteRange(offset: 0, length: 900_000)) == data)
    }

    @Test func refusedHeadFallsBackToOneByteGet() async throws {
        let data = patternBytes(200_000, seed: 21)
        let origin = try ScriptedOrigin(bytes: data, script: .init(refuseHead: true))
        let f = try LoaderFixture(headers: key)
        let resource = try await f.loader.open(origin.url)
        #expect(resource.length == 200_000)
        #expect(resource.info.etag == "\"one\"")
        #expect(try await f.read(origin.url, ByteRange(offset: 1, length: 199_999)) == Array(data[1...]))
    }

    @Test func missingHeaderIs401() async throws {
        let origin = try ScriptedOrigin(bytes: [1, 2, 3])
        let f = try LoaderFixture(headers: [:])
        await #expect(throws: RangeOriginError.status(401, url: origin.url.absoluteString)) {
            _ = try await f.loader.open(origin.url)
        }
    }

    @Test func originDyingMidTransferFailsTheReaderAfterACorrectPrefix() async throws {
        let data = patternBytes(1_000_000, seed: 22)
        let origin = try ScriptedOrigin(bytes: data, script: .init(cutAfter: 150_000, deadAfterCut: true))
        let f = try LoaderFixture(headers: key) { $0.initialWindow = 2 << 20 }
        let resource = try await f.loader.open(origin.url)
        var received: [UInt8] = []
        await #expect(throws: RangeOriginError.self) {
            for try await chunk in resource.bytes(ByteRange(offset: 0, length: 1_000_000)) { received += chunk }
        }
        #expect(received.count < data.count)
        #expect(received == Array(data[0 ..< received.count]))
        #expect(f.log.all.contains { $0.contains("failed") })
    }

    @Test func cutTransfersAreResumedWhereTheyStopped() async throws {
        let data = patternBytes(1_000_000, seed: 25)
        let origin = try ScriptedOrigin(bytes: data, script: .init(cutAfter: 150_000))
        let f = try LoaderFixture(headers: key) { $0.initialWindow = 2 << 20 }
        #expect(try await f.read(origin.url, ByteRange(offset: 0, length: 1_000_000)) == data)
        #expect(origin.cuts.load(ordering: .relaxed) >= 6)
        // Resumed at block boundaries: little was fetched twice.
        #expect(origin.bytesSent < 1_000_000 + 8 * 64 * 1024)
    }

    @Test func leavingReaderStopsItsDownload() async throws {
        let data = patternBytes(6 << 20, seed: 23)
        let origin = try ScriptedOrigin(bytes: data, script: .init(trickle: .milliseconds(5)))
        let f = try LoaderFixture(headers: key) { $0.initialWindow = 4 << 20; $0.lookAhead = 64 * 1024 }
        let resource = try await f.loader.open(origin.url)
        var iterator = resource.bytes(ByteRange(offset: 0, length: Int64(data.count)), chunkSize: 1000).makeAsyncIterator()
        #expect(try await iterator.next() == Array(data[0 ..< 1000]))
        // The player seeks far away: a new reader there, the old one gone.
        let far = ByteRange(offset: 5 << 20, length: 100_000)
        var farBytes: [UInt8] = []
        for try await chunk in resource.bytes(far) { farBytes += chunk }
        #expect(farBytes == Array(data[(5 << 20) ..< (5 << 20) + 100_000]))
        _ = consume iterator
        // The 4 MiB read-ahead of the first reader was abandoned well before it completed.
        try await Task.sleep(for: .milliseconds(300))
        let sent = origin.bytesSent
        try await Task.sleep(for: .milliseconds(300))
        #expect(origin.bytesSent == sent, "origin kept sending after the reader left")
        #expect(sent < 3 << 20)
    }

    @Test func fullCacheServesFromMemoryAndSaysSo() async throws {
        let data = patternBytes(3 << 20, seed: 24)
        let origin = try ScriptedOrigin(bytes: data)
        // Room for two blocks only, while a reader pins a 1 MiB window: most blocks cannot be cached.
        let f = try LoaderFixture(headers: key, maxSize: 128 * 1024) { $0.initialWindow = 1 << 20 }
        #expect(try await f.read(origin.url, ByteRange(offset: 0, length: Int64(data.count))) == data)
        #expect(try await f.read(origin.url, ByteRange(offset: 100, length: 2_000_000)) == Array(data[100 ..< 2_000_100]))
        #expect(f.log.all.contains { $0.contains("without caching") })
        #expect(f.cache.usedBytes <= 128 * 1024)
    }
}

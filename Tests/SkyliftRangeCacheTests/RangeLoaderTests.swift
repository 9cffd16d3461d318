import Foundation
import SkyliftHTTPClient
import SkyliftRangeCache
import SkyliftCore
import SkyliftStorageServer
import Synchronization
import TestProbes
import Testing

/// Log lines gathered from any thread.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
    /// Sum of `out=N` over access-log lines: body bytes a StorageServer sent.
    var bytesOut: Int64 {
        all.compactMap { line in line.split(separator: " ").first { $0.hasPrefix("out=") }.flatMap { Int64($0.dropFirst(4)) } }
            .reduce(0, +)
    }
}

/// A StorageServer over a temp root, with token auth, logging each request.
final class Cloud {
    static let token = "tok-\(UUID().uuidString.prefix(8))"
    let root = try! TempFolder("rangecache")
    let access = Lines()
    let server: StorageServer
    init() throws {
        let config = StorageConfiguration(root: root.url, token: Self.token, accessLog: Logger(label: "access") { [access] in access.append($0) })
        server = try StorageServer(configuration: config)
        try server.start()
    }
    deinit { server.stop() }
    func put(_ name: String, _ bytes: [UInt8]) throws {
        // Write then rename: a new inode, so a replaced file always gets a new ETag.
        let tmp = root.appending(".tmp-" + UUID().uuidString)
        try Data(bytes).write(to: tmp)
        guard rename(tmp.path, root.appending(name).path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
    func url(_ name: String) -> URL { URL(string: server.baseURL + "/dav/" + name)! }
}

struct LoaderFixture: Sendable {
    let dir: TempFolder
    let cache: RangeCache
    let loader: RangeLoader
    let log = Lines()

    init(headers: HTTPHeaders = ["Authorization": "Bearer \(Cloud.token)"], dir: TempFolder? = nil, maxSize: Int64 = 1 << 30,
         configure: (inout RangeLoader.Configuration) -> Void = { _ in }) throws {
        self.dir = try dir ?? TempFolder("rangecache")
        let log = self.log
        cache = try RangeCache(configuration: .init(directory: self.dir.url, maxSize: maxSize,
                                                        logger: Logger(label: "cache", level: .trace) { log.append($0) }))
        var config = RangeLoader.Configuration(initialWindow: 256 * 1024, maxWindow: 2 << 20, revalidateAfter: 0,
                                               retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 0.02),
                                               logger: Logger(label: "loader", level: .trace) { log.append($0) })
        configure(&config)
        loader = RangeLoader(cache: cache, origin: HTTPRangeOrigin(transport: makeDefaultTransport(), headers: headers, timeout: 10),
                             configuration: config)
    }

    func read(_ url: URL, _ range: ByteRange) async throws -> [UInt8] {
        let resource = try await loader.open(url)
        var out: [UInt8] = []
        for try await chunk in resource.bytes(range, chunkSize: 100_000) { out += chunk }
        return out
    }
}

@Suite struct RangeLoaderTests {
    @Test func randomRangesAreByteExactAndFetchedOnce() async throws {
        let cloud = try Cloud()
        let data = patternBytes(3_000_017, seed: 7)
        try cloud.put("a.bin", data)
        let f = try LoaderFixture()
        let resource = try await f.loader.open(cloud.url("a.bin"))
        #expect(resource.length == Int64(data.count))
        #expect(resource.info.etag != nil)
        var generator = SystemRandomNumberGenerator()
        for i in 0..<24 {
            let start = Int64.random(in: 0 ..< Int64(data.count), using: &generator)
            let length = i % 4 == 0 ? Int64(data.count) - start : Int64.random(in: 1 ... 400_000, using: &generator)
            let range = ByteRange(offset: start, length: min(length, Int64(data.count) - start))
            let got = try await f.read(cloud.url("a.bin"), range)
            #expect(got == Array(data[Int(range.offset) ..< Int(range.end)]), "range \(range)")
        }
        let whole = try await f.read(cloud.url("a.bin"), ByteRange(offset: 0, length: Int64(data.count)))
        #expect(whole == data)
        // Every block came from the origin at most once.
        #expect(cloud.access.bytesOut <= Int64(data.count))
        let before = cloud.access.bytesOut
        #expect(try await f.read(cloud.url("a.bin"), ByteRange(offset: 5, length: 2_000_000)) == Array(data[5 ..< 2_000_005]))
        #expect(cloud.access.bytesOut == before)
    }

    @Test func cachedBytesAreThereOnlyOnceTheRangeIsInTheCacheAndFetchNothing() async throws {
        let cloud = try Cloud()
        let data = patternBytes(1_000_003, seed: 11)
        try cloud.put("c.bin", data)
        let f = try LoaderFixture()
        let resource = try await f.loader.open(cloud.url("c.bin"))
        let small = ByteRange(offset: 300_000, length: 4096)
        #expect(resource.cachedBytes(small, limit: 16 << 10) == nil)
        #expect(cloud.access.bytesOut == 0, "asking the cache downloads nothing")
        _ = try await f.read(cloud.url("c.bin"), ByteRange(offset: 0, length: Int64(data.count)))
        let before = cloud.access.bytesOut
        #expect(resource.cachedBytes(small, limit: 16 << 10) == Array(data[300_000 ..< 304_096]))
        let tail = ByteRange(offset: Int64(data.count) - 10, length: 10)
        #expect(resource.cachedBytes(tail, limit: 16 << 10) == Array(data[(data.count - 10)...]))
        #expect(resource.cachedBytes(ByteRange(offset: 0, length: 20_000), limit: 16 << 10) == nil, "over the limit")
        #expect(cloud.access.bytesOut == before)
        // A changed file makes a new representation: the old one's bytes are not handed out.
        try cloud.put("c.bin", patternBytes(1_000_003, seed: 12))
        _ = try await f.loader.open(cloud.url("c.bin"))
        #expect(resource.cachedBytes(small, limit: 16 << 10) == nil)
    }

    @Test func concurrentReadersShareDownloads() async throws {
        let cloud = try Cloud()
        let data = patternBytes(4_000_000, seed: 8)
        try cloud.put("b.bin", data)
        let f = try LoaderFixture()
        let url = cloud.url("b.bin")
        let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for i in 0..<5 {
                group.addTask { try await f.read(url, ByteRange(offset: Int64(i) * 1000, length: Int64(data.count - i * 1000))) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 5)
        for got in results {
            let start = data.count - got.count
            #expect(got == Array(data[start...]))
        }
        #expect(cloud.access.bytesOut <= Int64(data.count))
    }

    @Test func restartedCacheReusesRanges() async throws {
        let cloud = try Cloud()
        let data = patternBytes(1_500_000, seed: 9)
        try cloud.put("c.bin", data)
        let dir = try TempFolder("rangecache")
        do {
            let f = try LoaderFixture(dir: dir)
            #expect(try await f.read(cloud.url("c.bin"), ByteRange(offset: 0, length: 1_000_000)) == Array(data[0 ..< 1_000_000]))
            f.cache.close()
        }
        let before = cloud.access.bytesOut
        let f = try LoaderFixture(dir: dir)
        #expect(try await f.read(cloud.url("c.bin"), ByteRange(offset: 10, length: 900_000)) == Array(data[10 ..< 900_010]))
        #expect(cloud.access.bytesOut == before)
    }

    @Test func originErrorsArePassedOnWithoutSecrets() async throws {
        let cloud = try Cloud()
        try cloud.put("d.bin", [1, 2, 3])
        let bad = try LoaderFixture(headers: ["Authorization": "Bearer wrong-secret-value"])
        do {
            _ = try await bad.loader.open(cloud.url("d.bin"))
            Issue.record("open with a wrong token succeeded")
        } catch let error as RangeOriginError {
            #expect(error.status == 401)
            #expect(!"\(error)".contains("wrong-secret-value"))
        }
        let good = try LoaderFixture()
        await #expect(throws: RangeOriginError.status(404, url: cloud.url("missing.bin").absoluteString)) {
            _ = try await good.loader.open(cloud.url("missing.bin"))
        }
        #expect(try await good.read(cloud.url("d.bin"), ByteRange(offset: 1, length: 2)) == [2, 3])
    }

    @Test func originChangeMidStreamFailsTheReaderThenServesTheNewVersion() async throws {
        let cloud = try Cloud()
        let old = patternBytes(3_000_000, seed: 10), new = patternBytes(2_900_000, seed: 11)
        try cloud.put("e.bin", old)
        let f = try LoaderFixture()
        let url = cloud.url("e.bin")
        let resource = try await f.loader.open(url)
        var received: [UInt8] = []
        do {
            for try await chunk in resource.bytes(ByteRange(offset: 0, length: Int64(old.count)), chunkSize: 64 * 1024) {
                received += chunk
                if received.count == 64 * 1024 { try cloud.put("e.bin", new) }
            }
            Issue.record("reader finished across an origin change")
        } catch let error as RangeOriginError {
            #expect(error == .changed(url: url.absoluteString))
        }
        // What arrived was all old bytes, never a mix.
        #expect(received.count < old.count)
        #expect(received == Array(old[0 ..< received.count]))
        #expect(f.log.all.contains { $0.contains("origin changed") })
        let again = try await f.read(url, ByteRange(offset: 0, length: Int64(new.count)))
        #expect(again == new)
    }
}

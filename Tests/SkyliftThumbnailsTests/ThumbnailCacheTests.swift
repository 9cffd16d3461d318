import Foundation
import SkyliftSystem
import SkyliftThumbnails
import Testing
import TestProbes

/// The disk cache and the executor: entries survive a new maker, the total stays bounded, a thumbnail asked for
/// by many at once is made once, and no more are made at once than the maker has threads.
@Suite struct ThumbnailCacheTests {
    let scratch: TempFolder

    init() throws { scratch = try TempFolder("thumb-cache") }

    func options(_ name: String = "cache") -> ThumbnailOptions { ThumbnailOptions(cacheFolder: scratch.appending(name).path) }

    func ask(_ maker: Thumbnailer, _ url: URL, key: String, _ size: ThumbnailSize = .small) -> Result<Thumbnail, ThumbnailError> {
        guard let fd = try? FileDescriptor.open(url.path, .readOnly) else { return .failure(.undecodable(reason: "cannot open")) }
        defer { fd.close() }
        return maker.thumbnail(of: fd, kind: .image, key: key, size: size)
    }

    /// `count` distinct JPEGs (each its own colour).
    func pictures(_ count: Int) throws -> [URL] {
        try (0 ..< count).map { i in
            let url = scratch.appending("p\(i).jpg")
            try TestMedia.still(url, width: 320, height: 240, color: String(format: "0x%06x", i * 0x0a0b0c & 0xffffff))
            return url
        }
    }

    @Test func aNewMakerReadsTheCacheAnEarlierOneWrote() throws {
        let url = try pictures(1)[0]
        let first = try Thumbnailer(options: options())
        let made = try ask(first, url, key: "k1").get()
        #expect(first.counters.made == 1)
        let second = try Thumbnailer(options: options())
        let again = try ask(second, url, key: "k1").get()
        #expect(second.counters.made == 0 && second.counters.cacheHits == 1)
        #expect(again.jpeg == made.jpeg && again.tag == made.tag)
        // Another key (the file changed) is another entry, made anew.
        _ = try ask(second, url, key: "k2").get()
        #expect(second.counters.made == 1)
    }

    @Test func aDamagedEntryIsMadeAgain() throws {
        let url = try pictures(1)[0]
        let maker = try Thumbnailer(options: options())
        let thumb = try ask(maker, url, key: "k").get()
        let entry = scratch.appending("cache/\(thumb.tag).jpg")
        try Data(thumb.jpeg.prefix(thumb.jpeg.count / 2)).write(to: entry) // as a power cut could leave it
        let fresh = try Thumbnailer(options: options())
        #expect(try ask(fresh, url, key: "k").get().jpeg == thumb.jpeg)
        #expect(fresh.counters.made == 1)
    }

    @Test func theCacheStaysUnderItsLimit() throws {
        var o = options()
        o.cacheBytes = 2500
        let maker = try Thumbnailer(options: o)
        let urls = try pictures(8)
        var sizes: [Int] = []
        for (i, url) in urls.enumerated() { sizes.append(try ask(maker, url, key: "k\(i)").get().jpeg.count) }
        #expect(maker.cachedBytes <= 2500, "\(maker.cachedBytes) bytes kept")
        let files = try FileManager.default.contentsOfDirectory(atPath: o.cacheFolder)
        let onDisk = try files.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: o.cacheFolder + "/" + $1)[.size] as? Int) ?? 0) }
        #expect(onDisk <= 2500 && onDisk == Int(maker.cachedBytes), "\(files.count) files, \(onDisk) bytes")
        // The newest is kept, the oldest went.
        #expect(files.contains(maker.tag(key: "k7", size: .small) + ".jpg"))
        #expect(!files.contains(maker.tag(key: "k0", size: .small) + ".jpg"))
        #expect(sizes.allSatisfy { $0 > 0 })
    }

    @Test func recentThumbnailsAreKeptInMemoryWithinTheirLimit() throws {
        var o = options()
        o.memoryBytes = 16_000
        let maker = try Thumbnailer(options: o)
        let urls = try pictures(8)
        var made: [Thumbnail] = []
        for (i, url) in urls.enumerated() { made.append(try ask(maker, url, key: "k\(i)").get()) }
        #expect(maker.memoryBytes > 0 && maker.memoryBytes <= 16_000, "\(maker.memoryBytes) bytes in memory")
        // The newest is answered from memory even with its file gone from the disk cache.
        try FileManager.default.removeItem(atPath: o.cacheFolder + "/" + made[7].tag + ".jpg")
        #expect(maker.cached(tag: made[7].tag)?.jpeg == made[7].jpeg)
        #expect(maker.cached(tag: maker.tag(key: "k7", size: .large)) == nil)
    }

    @Test func aThumbnailLeavesMemoryWithItsDiskEntry() throws {
        var o = options()
        o.cacheBytes = 2500
        let maker = try Thumbnailer(options: o)
        let urls = try pictures(8)
        for (i, url) in urls.enumerated() { _ = try ask(maker, url, key: "k\(i)").get() }
        #expect(maker.cached(tag: maker.tag(key: "k0", size: .small)) == nil, "evicted from disk, so gone from memory too")
        #expect(maker.cached(tag: maker.tag(key: "k7", size: .small)) != nil)
        #expect(maker.memoryBytes <= Int(maker.cachedBytes))
    }

    @Test func oneThumbnailAskedByManyAtOnceIsMadeOnce() throws {
        let url = try pictures(1)[0]
        let maker = try Thumbnailer(options: options())
        let results = askAtOnce(12) { _ in ask(maker, url, key: "same") }
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(maker.counters.made == 1, "\(maker.counters)")
        #expect(Set(results.compactMap { try? $0.get().jpeg }).count == 1)
    }

    @Test func noMoreAreMadeAtOnceThanTheMakerHasThreads() throws {
        let urls = try pictures(12)
        var o = options()
        o.threads = 2
        let maker = try Thumbnailer(options: o)
        let results = askAtOnce(urls.count) { i in ask(maker, urls[i], key: "k\(i)", .large) }
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        let counters = maker.counters
        #expect(counters.made == 12 && counters.running == 0, "\(counters)")
        #expect((1 ... 2).contains(counters.peakRunning), "\(counters)")
    }

    /// Runs `work` on `count` threads of their own (as the HTTP server's connection threads would), released
    /// together; the results in order.
    func askAtOnce(_ count: Int, _ work: @escaping @Sendable (Int) -> Result<Thumbnail, ThumbnailError>) -> [Result<Thumbnail, ThumbnailError>] {
        let results = UnsafeResults(count)
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for i in 0 ..< count {
            done.enter()
            Thread.detachNewThread {
                start.wait()
                results.set(i, work(i))
                done.leave()
            }
        }
        for _ in 0 ..< count { start.signal() }
        done.wait()
        return results.all
    }
}

/// Results written by concurrent threads, each to its own slot.
final class UnsafeResults: @unchecked Sendable { // every access holds the lock
    private var slots: [Result<Thumbnail, ThumbnailError>?]
    private let lock = NSLock()
    init(_ count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: Result<Thumbnail, ThumbnailError>) { lock.withLock { slots[i] = value } }
    var all: [Result<Thumbnail, ThumbnailError>] { lock.withLock { slots.map { $0 ?? .failure(.undecodable(reason: "missing")) } } }
}

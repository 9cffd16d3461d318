import Foundation
import SkyliftRangeCache
import SkyliftCore
import TestProbes
import Testing

@Suite struct RangeCacheStoreTests {
    let block = 4096
    func config(_ dir: URL, maxSize: Int64 = 1 << 30, commit: Int64 = 1 << 30) -> RangeCache.Configuration {
        RangeCache.Configuration(directory: dir, maxSize: maxSize, blockSize: block, commitInterval: commit)
    }
    let key = CacheKey(url: URL(string: "http://origin.test/media/a.mp4")!)
    let info = ContentInfo(length: 10 * 4096 + 100, contentType: "video/mp4", etag: "\"v1\"")

    @Test func storedBlocksReadBackAndCoalesce() throws {
        let dir = try TempFolder("rangecache")
        let cache = try RangeCache(configuration: config(dir.url))
        let bytes = patternBytes(Int(info.length!), seed: 1)
        let entry = try cache.prepare(key, info: info)
        try cache.storeBlocks(entry, bytes, [0, 1, 2, 5, 10])
        #expect(cache.presentRanges(entry) == [ByteRange(offset: 0, length: 3 * 4096),
                                               ByteRange(offset: 5 * 4096, length: 4096),
                                               ByteRange(offset: 10 * 4096, length: 100)])
        #expect(cache.readAll(entry, ByteRange(offset: 100, length: 3 * 4096 - 100)) == Array(bytes[100 ..< 3 * 4096]))
        #expect(cache.readAll(entry, ByteRange(offset: 10 * 4096 + 7, length: 93)) == Array(bytes[(10 * 4096 + 7)...]))
        var buf = [UInt8](repeating: 0, count: 10)
        #expect(buf.withUnsafeMutableBytes { cache.read(entry, at: 3 * 4096, into: $0) } == .missing)
        #expect(buf.withUnsafeMutableBytes { cache.read(entry, at: info.length!, into: $0) } == .end)
        #expect(cache.usedBytes == 4 * 4096 + 100)
        // A read stops at the first missing block instead of returning holes.
        var big = [UInt8](repeating: 0, count: 8 * 4096)
        #expect(big.withUnsafeMutableBytes { cache.read(entry, at: 4096, into: $0) } == .bytes(2 * 4096))
    }

    @Test func committedBlocksSurviveReopenUncommittedDoNot() throws {
        let dir = try TempFolder("rangecache")
        let bytes = patternBytes(Int(info.length!), seed: 2)
        do {
            let cache = try RangeCache(configuration: config(dir.url))
            let entry = try cache.prepare(key, info: info)
            try cache.storeBlocks(entry, bytes, [0, 1])
            cache.commit(key)
            try cache.storeBlocks(entry, bytes, [4, 5])
            // A copy of the directory now is what a crash would leave: the map names only blocks 0 and 1.
            let crashed = dir.appending("crashed")
            try FileManager.default.copyItem(at: dir.url.appendingPathComponent("resources"),
                                             to: crashed.appendingPathComponent("resources"))
            try FileManager.default.copyItem(at: dir.url.appendingPathComponent("FORMAT"),
                                             to: crashed.appendingPathComponent("FORMAT"))
            let after = try RangeCache(configuration: config(crashed))
            let e2 = try #require(after.lookup(key))
            #expect(after.presentRanges(e2) == [ByteRange(offset: 0, length: 2 * 4096)])
            #expect(after.readAll(e2, ByteRange(offset: 0, length: 8192)) == Array(bytes[0 ..< 8192]))
            after.close()
            cache.close()
        }
        let reopened = try RangeCache(configuration: config(dir.url))
        let entry = try #require(reopened.lookup(key))
        #expect(entry.info == info)
        #expect(reopened.presentRanges(entry) == [ByteRange(offset: 0, length: 8192), ByteRange(offset: 4 * 4096, length: 8192)])
        #expect(reopened.readAll(entry, ByteRange(offset: 4 * 4096, length: 8192)) == Array(bytes[(4 * 4096) ..< (6 * 4096)]))
        // Same representation: prepare keeps the blocks. A new ETag drops them all.
        #expect(try reopened.prepare(key, info: info).epoch == entry.epoch)
        let changed = try reopened.prepare(key, info: ContentInfo(length: info.length, etag: "\"v2\""))
        #expect(changed.epoch != entry.epoch)
        #expect(reopened.presentRanges(changed) == [])
        #expect(reopened.presentRanges(entry) == nil)
        var buf = [UInt8](repeating: 0, count: 10)
        #expect(buf.withUnsafeMutableBytes { reopened.read(entry, at: 0, into: $0) } == .stale)
        #expect(reopened.usedBytes == 0)
    }

    @Test func corruptBlockIsDroppedOnRead() throws {
        let dir = try TempFolder("rangecache")
        let bytes = patternBytes(Int(info.length!), seed: 3)
        do {
            let cache = try RangeCache(configuration: config(dir.url))
            try cache.storeBlocks(try cache.prepare(key, info: info), bytes, 0..<4)
            cache.close()
        }
        let data = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.appending("resources").path)
            .first { $0.hasSuffix(".data") })
        let handle = try FileHandle(forUpdating: dir.appending("resources/" + data))
        try handle.seek(toOffset: 2 * 4096 + 17)
        handle.write(Data([bytes[2 * 4096 + 17] ^ 0xFF]))
        try handle.close()

        let cache = try RangeCache(configuration: config(dir.url))
        let entry = try #require(cache.lookup(key))
        var buf = [UInt8](repeating: 0, count: 4 * 4096)
        // Blocks 0 and 1 check out; the read stops before the damaged block 2.
        #expect(buf.withUnsafeMutableBytes { cache.read(entry, at: 0, into: $0) } == .bytes(2 * 4096))
        #expect(Array(buf[0 ..< 8192]) == Array(bytes[0 ..< 8192]))
        #expect(cache.presentRanges(entry) == [ByteRange(offset: 0, length: 8192), ByteRange(offset: 3 * 4096, length: 4096)])
        #expect(buf.withUnsafeMutableBytes { cache.read(entry, at: 2 * 4096, into: $0) } == .missing)
        try cache.storeBlocks(entry, bytes, [2])
        #expect(cache.readAll(entry, ByteRange(offset: 0, length: 4 * 4096)) == Array(bytes[0 ..< 4 * 4096]))
    }

    @Test func damagedMapsAndOldFormatsAreRebuilt() throws {
        let dir = try TempFolder("rangecache")
        do {
            let cache = try RangeCache(configuration: config(dir.url))
            let other = CacheKey(url: URL(string: "http://origin.test/b")!)
            try cache.storeBlocks(try cache.prepare(key, info: info), patternBytes(Int(info.length!), seed: 4), [0])
            _ = try cache.prepare(other, info: ContentInfo(length: 10))
            cache.close()
        }
        let maps = try FileManager.default.contentsOfDirectory(atPath: dir.appending("resources").path).filter { $0.hasSuffix(".map") }
        #expect(maps.count == 2)
        // Truncate one map: that entry goes, the other stays.
        let victim = dir.appending("resources/" + maps[0])
        let original = try Data(contentsOf: victim)
        try original.prefix(original.count - 3).write(to: victim)
        do {
            let cache = try RangeCache(configuration: config(dir.url))
            let kept = [key, CacheKey(url: URL(string: "http://origin.test/b")!)].compactMap { cache.lookup($0) }
            #expect(kept.count == 1)
            cache.close()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appending("resources").path).count == 2)
        // A directory from another format version is emptied and reused.
        try Data("skylift-range-cache 0\n".utf8).write(to: dir.appending("FORMAT"))
        let cache = try RangeCache(configuration: config(dir.url))
        #expect(cache.lookup(key) == nil)
        #expect(cache.usedBytes == 0)
        #expect(try String(contentsOf: dir.appending("FORMAT"), encoding: .utf8) == "skylift-range-cache 1\n")
    }

    @Test func secondOwnerIsRefused() throws {
        let dir = try TempFolder("rangecache")
        let first = try RangeCache(configuration: config(dir.url))
        #expect(throws: RangeCacheError.locked(directory: dir.url.path)) { try RangeCache(configuration: config(dir.url)) }
        let message = "\(RangeCacheError.locked(directory: dir.url.path))"
        #expect(message.contains(dir.url.path) && message.contains("in use"))
        first.close()
        // Another test's child process may hold a copy of the lock descriptor for the instant between its
        // fork and exec (the descriptor is close-on-exec): allow that instant to pass.
        var reopened: RangeCache?
        for _ in 0..<50 where reopened == nil {
            reopened = try? RangeCache(configuration: config(dir.url))
            if reopened == nil { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(reopened != nil)
    }

    @Test func evictionIsLRUAndSparesPins() throws {
        let dir = try TempFolder("rangecache")
        let cache = try RangeCache(configuration: config(dir.url, maxSize: 6 * 4096))
        let small = ContentInfo(length: 4 * 4096, etag: "\"s\"")
        let keys = (0..<3).map { CacheKey(url: URL(string: "http://origin.test/\($0)")!) }
        let data = (0..<3).map { patternBytes(4 * 4096, seed: UInt64(10 + $0)) }
        let e0 = try cache.prepare(keys[0], info: small)
        try cache.storeBlocks(e0, data[0], 0..<3)
        let e1 = try cache.prepare(keys[1], info: small)
        try cache.storeBlocks(e1, data[1], 0..<3)
        #expect(cache.usedBytes == 6 * 4096)
        // Touch e0 so e1 is the least recently used.
        Thread.sleep(forTimeInterval: 0.01)
        #expect(cache.readAll(e0, ByteRange(offset: 0, length: 10)) != nil)
        let e2 = try cache.prepare(keys[2], info: small)
        try cache.storeBlocks(e2, data[2], [0])
        #expect(cache.lookup(keys[1]) == nil)
        #expect(cache.presentRanges(e0) == [ByteRange(offset: 0, length: 3 * 4096)])
        #expect(cache.usedBytes <= 6 * 4096)

        // With e0's blocks 1-2 pinned and all of e2 in use, filling e2 takes e0's unpinned block 0.
        try cache.storeBlocks(e2, data[2], 1..<3)
        #expect(cache.usedBytes == 6 * 4096)
        let pin = cache.pin(e0, ByteRange(offset: 4096, length: 2 * 4096))
        let pin2 = cache.pin(e2, ByteRange(offset: 0, length: 4 * 4096))
        try cache.storeBlocks(e2, data[2], [3])
        #expect(cache.presentRanges(e0) == [ByteRange(offset: 4096, length: 2 * 4096)])
        #expect(cache.readAll(e2, ByteRange(offset: 0, length: 4 * 4096)) == data[2])
        // Everything is pinned now: no room, and nothing pinned was touched.
        let e3 = try cache.prepare(CacheKey(url: URL(string: "http://origin.test/3")!), info: small)
        #expect(throws: RangeCacheError.full(limit: 6 * 4096)) { try cache.storeBlocks(e3, data[1], [0]) }
        #expect(cache.readAll(e0, ByteRange(offset: 4096, length: 2 * 4096)) == Array(data[0][4096 ..< 3 * 4096]))
        #expect(cache.readAll(e2, ByteRange(offset: 0, length: 4 * 4096)) == data[2])
        cache.unpin(pin)
        cache.unpin(pin2)
        try cache.storeBlocks(e3, data[1], [0])
        #expect(cache.usedBytes <= 6 * 4096)
        #expect(cache.readAll(e3, ByteRange(offset: 0, length: 4096)) == Array(data[1][0 ..< 4096]))
    }

    /// Files of removed and evicted entries are deleted after the cache-wide lock is released; a new version
    /// of a key gets fresh files, never the dropped version's bytes.
    @Test func removedAndEvictedEntriesLeaveNoFiles() throws {
        let dir = try TempFolder("rangecache")
        let cache = try RangeCache(configuration: config(dir.url, maxSize: 6 * 4096, commit: 1))
        let resources = dir.appending("resources").path
        func files() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: resources)) }
        let small = ContentInfo(length: 4 * 4096, etag: "\"s\"")
        let keys = (0..<3).map { CacheKey(url: URL(string: "http://origin.test/\($0)")!) }
        let data = (0..<3).map { patternBytes(4 * 4096, seed: UInt64(20 + $0)) }
        let e0 = try cache.prepare(keys[0], info: small)
        try cache.storeBlocks(e0, data[0], 0..<3)
        let first = try files()
        #expect(first.count == 2 && first.contains { $0.hasSuffix(".map") } && first.contains { $0.hasSuffix(".data") })
        let e1 = try cache.prepare(keys[1], info: small)
        try cache.storeBlocks(e1, data[1], 0..<3)
        let e2 = try cache.prepare(keys[2], info: small)
        try cache.storeBlocks(e2, data[2], [0])  // evicts e0, the least recently used
        #expect(cache.lookup(keys[0]) == nil)
        #expect(try files().isDisjoint(with: first))
        #expect(try files().count == 4)
        cache.remove(keys[1])
        #expect(try files().count == 2)
        // A new version of keys[2]: same file names, fresh contents.
        let v2 = ContentInfo(length: 4 * 4096, etag: "\"v2\"")
        let fresh = try cache.prepare(keys[2], info: v2)
        #expect(cache.presentRanges(fresh) == [])
        #expect(cache.readAll(fresh, ByteRange(offset: 0, length: 10)) == nil)
        #expect(try files().count == 1)  // the data file; its map comes with the first block
        try cache.storeBlocks(fresh, data[0], [0])
        #expect(cache.readAll(fresh, ByteRange(offset: 0, length: 4096)) == Array(data[0][0 ..< 4096]))
        #expect(try files().count == 2)
    }

    @Test func cacheKeyDropsNamedQueryParameters() {
        let url = URL(string: "https://cdn.test/v/a.mp4?X-Amz-Signature=abc&part=2&Expires=9#frag")!
        #expect(CacheKey(url: url, droppingQuery: ["x-amz-signature", "Expires"]).value == "https://cdn.test/v/a.mp4?part=2")
        #expect(CacheKey(url: url).value == "https://cdn.test/v/a.mp4?X-Amz-Signature=abc&part=2&Expires=9")
        #expect(CacheKey(url: url).description == "https://cdn.test/v/a.mp4")
        #expect(CacheKey(url: URL(string: "http://h/a?sig=1")!, droppingQuery: ["sig"]).value == "http://h/a")
    }
}

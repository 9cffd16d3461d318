import Foundation
import Hashing
import SkyliftCore
import Synchronization

/// A persistent byte-range cache: one sparse file per resource, a map of the blocks present, and per-block
/// checksums, under a hard size limit with least-recently-used eviction.
///
/// Crash safety: a block's bytes are written and flushed (`fdatasync`) before a map naming it is written, and
/// maps are replaced atomically (temp file, `fsync`, `rename`). After a `kill -9` the map on disk names only
/// blocks whose bytes reached the disk; a block that still fails its checksum (say, a torn write under a
/// later eviction) is dropped on first read and fetched again.
///
/// One process owns a cache directory at a time (an `flock` on `<dir>/lock`). A directory with an unknown
/// format or damaged maps is rebuilt, not trusted.
///
/// Thread-safe: bookkeeping sits behind a mutex; file reads and writes run outside it, protected by pins.
public final class RangeCache: Sendable {
    /// Where the cache lives and how big it may grow.
    public struct Configuration: Sendable {
        public var directory: URL
        /// Hard limit on cached bytes.
        public var maxSize: Int64
        /// Granularity of presence and checksums.
        public var blockSize: Int
        /// Bytes written to one resource before its map is flushed to disk.
        public var commitInterval: Int64
        /// Receives warnings (damaged entries dropped, write failures). Lines hold paths, never queries.
        public var log: @Sendable (String) -> Void

        public init(directory: URL, maxSize: Int64 = 2 << 30, blockSize: Int = 64 * 1024,
                    commitInterval: Int64 = 8 << 20, log: @escaping @Sendable (String) -> Void = { _ in }) {
            self.directory = directory
            self.maxSize = maxSize
            self.blockSize = blockSize
            self.commitInterval = commitInterval
            self.log = log
        }
    }

    /// On-disk format of the directory; another value means the directory gets rebuilt.
    static let formatLine = "skylift-range-cache 1"

    public let configuration: Configuration

    /// The largest resource length accepted from an origin or a map on disk (1 EiB): far beyond any real file,
    /// and far enough below Int64.max that positions plus windows and block rounding cannot overflow.
    public static let maxResourceLength: Int64 = 1 << 60
    let io: any CacheFileIO
    let resourcesPath: String
    let state: ThreadMutex<State>
    private let lockDescriptor: Int32

    /// Opens (creating if needed) the cache directory and takes ownership of it.
    /// Throws ``RangeCacheError/locked(directory:)`` when another process owns it.
    public convenience init(configuration: Configuration) throws {
        try self.init(configuration: configuration, io: POSIXCacheFileIO())
    }

    init(configuration: Configuration, io: any CacheFileIO) throws {
        self.configuration = configuration
        self.io = io
        let dir = configuration.directory.path
        do {
            try PrivateFiles.createDirectory(dir)
        } catch {
            throw RangeCacheError.unusableDirectory(path: dir, reason: "\(error)")
        }
        do {
            lockDescriptor = try io.lockExclusive(dir + "/lock")
        } catch let e as CacheIOError {
            if io.isWouldBlock(e.errno) { throw RangeCacheError.locked(directory: dir) }
            throw RangeCacheError.unusableDirectory(path: dir, reason: io.describe(errno: e.errno))
        }
        resourcesPath = dir + "/resources"
        var loaded = State()
        do {
            try Self.checkFormat(directory: dir, resources: resourcesPath, log: configuration.log)
            loaded = Self.load(resources: resourcesPath, configuration: configuration, io: io)
        } catch {
            io.close(lockDescriptor)
            throw error
        }
        state = ThreadMutex(loaded)
        state.withLock { s in
            _ = evictLocked(&s, toFit: 0, sparing: nil)
        }
    }

    deinit { close() }

    /// Flushes every map and releases the directory lock. Safe to call more than once.
    public func close() {
        state.withLock { s in
            guard !s.closed else { return }
            for key in Array(s.records.keys) { commitLocked(&s, key: key) }
            for (_, record) in s.records { if let fd = record.fd { io.close(fd) } }
            s.records.removeAll()
            s.closed = true
            io.close(lockDescriptor)
        }
    }

    /// Bytes held now (present blocks plus writes in flight).
    public var usedBytes: Int64 { state.withLock { $0.size } }

    /// What is cached about `key`, if anything.
    public func lookup(_ key: CacheKey) -> CacheEntry? {
        state.withLock { s in s.records[key.value].map { entry(key, $0) } }
    }

    /// Makes the cache hold `info`'s representation of `key`. When the cached representation differs
    /// (length, ETag or Last-Modified changed) every cached block is dropped first: versions never mix.
    /// `info.length` must be known.
    public func prepare(_ key: CacheKey, info: ContentInfo) throws -> CacheEntry {
        guard let length = info.length, length >= 0 else {
            throw RangeCacheError.io(call: "prepare", path: key.description, reason: "resource length unknown")
        }
        return try state.withLock { s in
            if var record = s.records[key.value] {
                let m = record.map.metadata
                if m.length == length && m.etag == info.etag && m.lastModified == info.lastModified?.timeIntervalSince1970 {
                    if m.contentType != info.contentType, info.contentType != nil {
                        record.map.metadata.contentType = info.contentType
                        record.dirty = true
                        s.records[key.value] = record
                    }
                    return entry(key, s.records[key.value]!)
                }
                removeLocked(&s, key: key.value)
            }
            let name = Self.fileName(for: key)
            let base = resourcesPath + "/" + name
            let fd: Int32
            do {
                fd = try io.open(base + ".data", create: true)
                try io.setLength(fd, 0, path: base + ".data")
                try io.setLength(fd, length, path: base + ".data")
            } catch let e as CacheIOError {
                throw mapped(e)
            }
            let metadata = ResourceMap.Metadata(
                key: key.value, length: length, contentType: info.contentType, etag: info.etag,
                lastModified: info.lastModified?.timeIntervalSince1970, blockSize: configuration.blockSize,
                lastAccess: Date().timeIntervalSince1970)
            s.nextEpoch += 1
            // The map is first written with the first blocks: until then a crash leaves a data file without a
            // map, which the next start deletes. Saving it now would put an fsync in front of the first byte.
            s.records[key.value] = Record(name: name, map: ResourceMap(metadata: metadata, blocks: [:]), fd: fd,
                                          epoch: s.nextEpoch, dirty: true)
            return entry(key, s.records[key.value]!)
        }
    }

    /// Removes `key` and its files.
    public func remove(_ key: CacheKey) {
        state.withLock { s in removeLocked(&s, key: key.value) }
    }

    /// Flushes `entry`'s new blocks and map to disk now.
    public func commit(_ key: CacheKey) {
        state.withLock { s in commitLocked(&s, key: key.value) }
    }

    /// The byte ranges present for `entry`, coalesced and in order; nil when the entry is stale.
    public func presentRanges(_ entry: CacheEntry) -> [ByteRange]? {
        state.withLock { s in
            guard let record = s.records[entry.key.value], record.epoch == entry.epoch else { return nil }
            var out: [ByteRange] = []
            for index in record.map.blocks.keys.sorted() {
                let r = blockRange(index, length: record.map.metadata.length)
                if let last = out.last, last.end == r.offset {
                    out[out.count - 1] = ByteRange(offset: last.offset, length: last.length + r.length)
                } else {
                    out.append(r)
                }
            }
            return out
        }
    }

    /// Whether block `index` of `entry` is present.
    public func isPresent(_ entry: CacheEntry, block index: Int) -> Bool {
        state.withLock { s in
            guard let record = s.records[entry.key.value], record.epoch == entry.epoch else { return false }
            return record.map.blocks[index] != nil
        }
    }

    /// The range block `index` covers in a resource of `length` bytes.
    public func blockRange(_ index: Int, length: Int64) -> ByteRange {
        let start = Int64(index) * Int64(configuration.blockSize)
        return ByteRange(offset: start, length: max(0, min(Int64(configuration.blockSize), length - start)))
    }

    static func fileName(for key: CacheKey) -> String {
        Digest.hash(.sha256, Array(key.value.utf8)).hexString
    }

    func entry(_ key: CacheKey, _ record: Record) -> CacheEntry {
        let m = record.map.metadata
        return CacheEntry(key: key, epoch: record.epoch, info: ContentInfo(
            length: m.length, contentType: m.contentType, etag: m.etag,
            lastModified: m.lastModified.map { Date(timeIntervalSince1970: $0) }))
    }

    func mapped(_ e: CacheIOError) -> RangeCacheError {
        io.isNoSpace(e.errno) ? .diskFull(path: e.path) : .io(call: e.call, path: e.path, reason: io.describe(errno: e.errno))
    }
}

/// A handle on one cached representation. Operations with a handle whose representation was since
/// replaced or evicted report staleness instead of mixing versions.
public struct CacheEntry: Sendable, Equatable {
    public let key: CacheKey
    /// Changes whenever the cached representation is reset.
    public let epoch: Int
    /// Length, type and validators of the cached representation.
    public let info: ContentInfo

    /// Always known for a prepared entry.
    public var length: Int64 { info.length ?? 0 }
}

/// What one cache read produced.
public enum CacheRead: Equatable, Sendable {
    /// This many bytes were copied (more than zero).
    case bytes(Int)
    /// The byte at the position is not cached (or failed its checksum and was dropped).
    case missing
    /// The entry was reset or evicted since the handle was made.
    case stale
    /// The position is at or past the end.
    case end
}

/// A promise to keep a range from eviction while it is being read.
public struct CachePin: Sendable, Hashable {
    let key: String
    let id: UInt64
}

/// Bookkeeping for one resource, guarded by the cache's mutex.
struct Record {
    var name: String
    var map: ResourceMap
    var fd: Int32?
    var epoch: Int
    /// Blocks whose bytes were written or checked by this process, so need no checksum on read.
    var verified: Set<Int> = []
    var pins: [UInt64: ByteRange] = [:]
    var uncommitted: Int64 = 0
    var dirty = false

    init(name: String, map: ResourceMap, fd: Int32?, epoch: Int, dirty: Bool = false) {
        self.name = name
        self.map = map
        self.fd = fd
        self.epoch = epoch
        self.dirty = dirty
    }

    func isPinned(_ range: ByteRange) -> Bool { pins.values.contains { $0.clamped(to: range) != nil } }
}

struct State {
    var records: [String: Record] = [:]
    var size: Int64 = 0
    var nextPin: UInt64 = 0
    var nextEpoch = 0
    var closed = false
    /// Descriptors of removed entries that still had pins, with the pins still out.
    var retired: [Int32: Set<UInt64>] = [:]
}

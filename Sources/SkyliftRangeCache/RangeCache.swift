import Foundation
import SkyliftHashing
import SkyliftCore
import SkyliftSystem
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
/// Thread-safe: bookkeeping sits behind one cache-wide mutex, held only for bookkeeping (and for hole
/// punching and `close`, which flush nothing); removed entries' files are deleted after it is released. Reads and writes of blocks run outside it, protected by
/// pins; creating a data file and committing (`fdatasync`, map replacement, folder `fsync`) run under the
/// resource's own `KeyLocks` lock instead. Lock order: key lock, then the cache-wide mutex.
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
        /// Warnings and errors (damaged entries dropped, write failures), evictions at `debug`. Lines hold
        /// paths, never queries.
        public var logger: Logger

        public init(directory: URL, maxSize: Int64 = 2 << 30, blockSize: Int = 64 * 1024,
                    commitInterval: Int64 = 8 << 20, logger: Logger = .disabled(label: "cache")) {
            self.directory = directory
            self.maxSize = maxSize
            self.blockSize = blockSize
            self.commitInterval = commitInterval
            self.logger = logger
        }
    }

    /// On-disk format of the directory; another value means the directory gets rebuilt.
    static let formatLine = "skylift-range-cache 1"

    public let configuration: Configuration

    /// The largest resource length accepted from an origin or a map on disk (1 EiB): far beyond any real file,
    /// and far enough below Int64.max that positions plus windows and block rounding cannot overflow.
    public static let maxResourceLength: Int64 = 1 << 60
    let resourcesPath: String
    let state: ThreadMutex<State>
    /// Serialises file work per resource (see ``KeyLocks``).
    let keyLocks = KeyLocks()
    private let lockDescriptor: FileDescriptor

    /// Opens (creating if needed) the cache directory and takes ownership of it.
    /// Throws ``RangeCacheError/locked(directory:)`` when another process owns it.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        let dir = configuration.directory.path
        do {
            try PrivateFiles.createDirectory(dir)
        } catch {
            throw RangeCacheError.unusableDirectory(path: dir, reason: "\(error)")
        }
        lockDescriptor = try Self.takeOwnership(of: dir)
        resourcesPath = dir + "/resources"
        var loaded = State()
        do {
            try Self.checkFormat(directory: dir, resources: resourcesPath, logger: configuration.logger)
            loaded = Self.load(resources: resourcesPath, configuration: configuration)
        } catch {
            lockDescriptor.close()
            throw error
        }
        state = ThreadMutex(loaded)
        state.withLock { s in
            _ = evictLocked(&s, toFit: 0, sparing: nil)
        }
        deleteRemovedFiles()
    }

    deinit { close() }

    /// Flushes every map and releases the directory lock. Safe to call more than once.
    public func close() {
        guard let keys = state.withLock({ s in s.closed ? nil : Array(s.records.keys) }) else { return }
        for key in keys { commit(key: key) }
        state.withLock { s in
            guard !s.closed else { return }
            for (_, record) in s.records { record.fd?.close() }
            s.records.removeAll()
            s.closed = true
            lockDescriptor.close()
        }
    }

    /// Opens `<dir>/lock` and takes its `flock`: one process owns a cache directory at a time.
    private static func takeOwnership(of dir: String) throws -> FileDescriptor {
        let path = dir + "/lock"
        do throws(FileError) {
            let fd = try FileDescriptor.open(path, .readWrite, options: .create)
            do throws(FileError) { try fd.tryLockExclusive(path: path) } catch {
                fd.close()
                throw error
            }
            return fd
        } catch {
            if error.errno?.isWouldBlock == true { throw RangeCacheError.locked(directory: dir) }
            throw RangeCacheError.unusableDirectory(path: dir, reason: error.errno?.description ?? "\(error)")
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
        // Files of entries dropped here or evicted are deleted once the key lock is released.
        defer { deleteRemovedFiles() }
        return try keyLocks.withLock(key.value) {
            if let kept = keepOrDrop(key, info: info, length: length) { return kept }
            // A new representation. Its data file is made under the key lock only; no other code creates
            // this key's files meanwhile, and the cache-wide lock stays free for other resources.
            let name = Self.fileName(for: key)
            let base = resourcesPath + "/" + name
            // Whatever files the key has belong to a dropped entry (pinned readers keep the old data file
            // open); a new entry for this key can only be made here, under its key lock.
            Directory.remove(base + ".map")
            Directory.remove(base + ".data")
            let fd: FileDescriptor
            do throws(FileError) {
                fd = try FileDescriptor.open(base + ".data", .readWrite, options: .create)
                do throws(FileError) {
                    try fd.setLength(0, path: base + ".data")
                    try fd.setLength(length, path: base + ".data")
                } catch {
                    fd.close()
                    throw error
                }
            } catch {
                throw mapped(error)
            }
            let metadata = ResourceMap.Metadata(
                key: key.value, length: length, contentType: info.contentType, etag: info.etag,
                lastModified: info.lastModified?.timeIntervalSince1970, blockSize: configuration.blockSize,
                lastAccess: Date().timeIntervalSince1970)
            return state.withLock { s in
                s.nextEpoch += 1
                // The map is first written with the first blocks: until then a crash leaves a data file
                // without a map, which the next start deletes. Saving it now would put an fsync in front of
                // the first byte.
                var record = Record(name: name, dataPath: base + ".data", map: ResourceMap(metadata: metadata, blocks: [:]),
                                    fd: fd, epoch: s.nextEpoch)
                record.markDirty()
                s.records[key.value] = record
                return entry(key, record)
            }
        }
    }

    /// The entry when the cache already holds `info`'s representation; otherwise drops what it holds.
    private func keepOrDrop(_ key: CacheKey, info: ContentInfo, length: Int64) -> CacheEntry? {
        state.withLock { s in
            guard var record = s.records[key.value] else { return nil }
            let m = record.map.metadata
            if m.length == length && m.etag == info.etag && m.lastModified == info.lastModified?.timeIntervalSince1970 {
                if m.contentType != info.contentType, info.contentType != nil {
                    record.map.metadata.contentType = info.contentType
                    record.markDirty()
                    s.records[key.value] = record
                }
                return entry(key, record)
            }
            removeLocked(&s, key: key.value)
            return nil
        }
    }

    /// Removes `key` and its files.
    public func remove(_ key: CacheKey) {
        state.withLock { s in removeLocked(&s, key: key.value) }
        deleteRemovedFiles()
    }

    /// Flushes `entry`'s new blocks and map to disk now.
    public func commit(_ key: CacheKey) { commit(key: key.value) }

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

    func mapped(_ e: FileError) -> RangeCacheError {
        e.isNoSpace ? .diskFull(path: e.path)
            : .io(call: e.call ?? "access", path: e.path, reason: e.errno?.description ?? e.reason ?? "failed")
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

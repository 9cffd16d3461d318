import Foundation
import SkyliftCore
import SkyliftSystem
import Synchronization

/// Fetches byte ranges from an origin through a ``RangeCache``, the way a media player needs them.
///
/// - Content info first (``RangeOrigin/contentInfo(of:)``), revalidated when older than
///   ``Configuration/revalidateAfter``; a changed representation drops the cached one and fails readers of
///   the old one, so no reader ever gets bytes of two versions.
/// - Readers of the same resource share downloads: a block is fetched once, whoever asked first.
/// - A sequential reader gets a read-ahead window that grows as it keeps reading in order.
/// - A download only one reader wanted stops when that reader leaves or seeks away.
/// - Each reader gets its bytes in order, from the moment the block holding its position is there.
/// - When the cache cannot take a block (disk full, everything pinned) the bytes are served from memory.
///
/// Use ``open(_:)`` to get a ``RangeResource``, then ``RangeResource/bytes(_:chunkSize:)`` (an `AsyncSequence`) or
/// ``RangeResource/cursor(_:)`` (a pull API for threads that may block).
public final class RangeLoader: Sendable {
    public struct Configuration: Sendable {
        /// Query parameters left out of cache keys (signatures that change on every URL).
        public var droppedQueryParameters: Set<String>
        /// Read-ahead of a reader that just started or seeked.
        public var initialWindow: Int64
        /// Most read-ahead a sequential reader grows to.
        public var maxWindow: Int64
        /// A download this close ahead of a reader counts as serving it; it is neither duplicated nor cancelled.
        public var lookAhead: Int64
        /// Seconds before content info is checked with the origin again (0: on every open).
        public var revalidateAfter: Double
        /// Bytes per resource held in memory when the cache cannot store them.
        public var memoryFallback: Int64
        /// Retries of a failed origin download (connect errors, cut transfers; never 4xx).
        public var retry: RetryPolicy
        /// Resources with no reader and no download kept in memory (with their content info, so a player
        /// coming back needs no new HEAD); beyond this the least recently used are forgotten. Their cached
        /// bytes stay on disk. Every URL a client asks gets an entry, so without this bound a client asking
        /// many URLs would grow the process without end.
        public var maxIdleResources: Int
        /// Seconds an idle resource is kept at most.
        public var idleResourceTimeout: Double
        /// One line per notable event. Lines carry URLs without queries, never header values.
        public var logger: Logger
        /// Threads of the loader's executor: downloads (which write and flush the cache synchronously) and the
        /// proxy's waits for them run there, so this many resources can be blocked on a slow disk before a
        /// download of another one waits for a thread.
        public var downloadThreads: Int

        public init(droppedQueryParameters: Set<String> = [], initialWindow: Int64 = 1 << 20,
                    maxWindow: Int64 = 32 << 20, lookAhead: Int64 = 1 << 20, revalidateAfter: Double = 5,
                    memoryFallback: Int64 = 32 << 20, retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.1, maxDelay: 1),
                    maxIdleResources: Int = 1024, idleResourceTimeout: Double = 600,
                    logger: Logger = .disabled(label: "loader"), downloadThreads: Int = 8) {
            self.droppedQueryParameters = droppedQueryParameters
            self.initialWindow = initialWindow
            self.maxWindow = maxWindow
            self.lookAhead = lookAhead
            self.revalidateAfter = revalidateAfter
            self.memoryFallback = memoryFallback
            self.retry = retry
            self.maxIdleResources = maxIdleResources
            self.idleResourceTimeout = idleResourceTimeout
            self.logger = logger
            self.downloadThreads = downloadThreads
        }
    }

    public let cache: RangeCache
    let origin: any RangeOrigin
    let configuration: Configuration
    private let resources = ThreadMutex<[String: LoaderResource]>([:])
    /// Where downloads run (`Configuration.downloadThreads` threads named `skylift-loader`); callers that
    /// block a thread waiting for the loader should run their async work here too (`Task(executorPreference:)`),
    /// so a busy shared pool cannot starve them. Not serial: a download blocked in one resource's cache write or
    /// flush holds one thread, and other resources' downloads go on on the others.
    public let executor: BlockingExecutor

    public init(cache: RangeCache, origin: any RangeOrigin, configuration: Configuration = .init()) {
        self.cache = cache
        self.origin = origin
        self.configuration = configuration
        executor = BlockingExecutor(name: "skylift-loader", threads: max(1, configuration.downloadThreads))
    }

    /// Describes `url` (asking the origin when the known description is older than `revalidateAfter`)
    /// and returns a handle to read it through the cache.
    ///
    /// Throws ``RangeOriginError`` when the origin refuses or cannot be reached.
    public func open(_ url: URL) async throws -> RangeResource {
        try await resource(for: url).validated(url: url)
    }

    /// The handle ``open(_:)`` would return, without waiting, when `url`'s content info was checked less than
    /// `revalidateAfter` ago; nil when the origin has to be asked. Lets a blocking caller skip a hop through
    /// the concurrency runtime for the common case of a player coming back for the next range.
    public func openIfFresh(_ url: URL) -> RangeResource? {
        resource(for: url).fresh(url: url)
    }

    private func resource(for url: URL) -> LoaderResource {
        let key = CacheKey(url: url, droppingQuery: configuration.droppedQueryParameters)
        return resources.withLock { all in
            if let r = all[key.value] { return r }
            let r = LoaderResource(key: key, url: url, loader: self)
            all[key.value] = r
            dropIdle(&all, sparing: key.value)
            return r
        }
    }

    /// Resources held in memory now (busy and idle).
    public var resourceCount: Int { resources.withLock { $0.count } }

    /// Forgets resources idle past the timeout, then the least recently used idle ones beyond the bound.
    /// Busy resources (readers or downloads) stay: each belongs to a connection, which the server bounds.
    private func dropIdle(_ all: inout [String: LoaderResource], sparing: String) {
        let now = ContinuousClock.now
        var idle = all.compactMap { key, r in key == sparing ? nil : r.idleSince().map { (key: key, since: $0) } }
        let timeout = Duration.seconds(configuration.idleResourceTimeout)
        var dropped = 0
        for entry in idle where now - entry.since > timeout {
            all.removeValue(forKey: entry.key)
            dropped += 1
        }
        guard idle.count - dropped > configuration.maxIdleResources else { return }
        idle = idle.filter { all[$0.key] != nil }.sorted { $0.since < $1.since }
        for entry in idle.prefix(idle.count - configuration.maxIdleResources) {
            all.removeValue(forKey: entry.key)
        }
    }

    /// Stops every download. Readers still waiting get an error.
    public func shutdown() {
        for resource in resources.withLock({ Array($0.values) }) { resource.shutdown() }
    }
}

/// One resource as a reader sees it: the representation it was opened at, and ways to read it.
public struct RangeResource: Sendable {
    let resource: LoaderResource
    let generation: Int
    /// Length (always known), type and validators.
    public let info: ContentInfo

    /// Total length in bytes.
    public var length: Int64 { info.length ?? 0 }

    /// A pull reader of `range` for threads that can block (one per HTTP connection).
    public func cursor(_ range: ByteRange) -> RangeCursor {
        RangeCursor(resource: resource, id: resource.addReader(range, generation: generation), range: range)
    }

    /// All of `range` (at most `limit` bytes) when the cache holds it now; nil otherwise. Nothing is registered
    /// or downloaded: a warm small range is read without a reader, and a miss goes through ``cursor(_:)``. So no
    /// read-ahead starts from such a read either: a client walking a cached region in small ranges starts the
    /// next download at its first miss.
    public func cachedBytes(_ range: ByteRange, limit: Int) -> [UInt8]? {
        guard range.length > 0, range.length <= Int64(limit) else { return nil }
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: Int(range.length)) { buffer, count in
            complete = resource.readCached(range, generation: generation, into: UnsafeMutableRawBufferPointer(buffer))
            count = complete ? buffer.count : 0
        }
        return complete ? bytes : nil
    }

    /// The bytes of `range`, in order, each chunk as soon as it is available. Iteration throws
    /// ``RangeOriginError`` when the origin fails or the resource changes underneath.
    public func bytes(_ range: ByteRange, chunkSize: Int = 256 * 1024) -> RangeBytes {
        RangeBytes(resource: self, range: range, chunkSize: chunkSize)
    }
}

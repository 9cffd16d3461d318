import Foundation
import SkyliftCore
import Synchronization
import SkyliftSystem

/// Coordination for one resource: its readers, its running downloads, and blocks held in memory when the
/// cache cannot take them. All of it behind one mutex; network I/O and block reads and writes happen outside it.
///
/// Lock order: this resource's mutex, then the cache's key lock for this resource (``RangeCache/prepare(_:info:)``,
/// which creates the data file, is called holding the mutex: only readers of this same resource wait on it),
/// then the cache-wide mutex (`pin`, `movePin`, `presence`, `isPresent`, `unpin`: bookkeeping only). The
/// cache never calls back into a resource, and commits (`fdatasync`, map replacement) are called with the
/// mutex released, so the order cannot invert and no flush runs under a lock other resources wait on.
final class LoaderResource: Sendable {
    let key: CacheKey
    let loader: RangeLoader
    let blockSize: Int64
    let state: ThreadMutex<ResourceState>

    init(key: CacheKey, url: URL, loader: RangeLoader) {
        self.key = key
        self.loader = loader
        self.blockSize = Int64(loader.cache.configuration.blockSize)
        self.state = ThreadMutex(ResourceState(url: url))
    }

    var cache: RangeCache { loader.cache }
    var configuration: RangeLoader.Configuration { loader.configuration }
    var display: String { Redaction.url(key.value, query: .drop) }

    // MARK: content info

    /// The current representation when it was checked with the origin less than `revalidateAfter` ago.
    func fresh(url: URL) -> RangeResource? {
        state.withLock { s -> RangeResource? in
            s.url = url
            s.lastUsed = .now
            guard let info = s.info, let at = s.validatedAt,
                  ContinuousClock.now - at < .seconds(configuration.revalidateAfter) else { return nil }
            return RangeResource(resource: self, generation: s.generation, info: info)
        }
    }

    func validated(url: URL) async throws -> RangeResource {
        if let current = fresh(url: url) { return current }
        let fresh = try await loader.origin.contentInfo(of: url)
        guard let length = fresh.length, length >= 0 else {
            throw RangeOriginError.badResponse(url: display, reason: "origin did not give the length")
        }
        return adopt(fresh)
    }

    /// Takes `fresh` as the current representation. A different one than known starts a new generation:
    /// downloads stop, cached blocks are dropped, readers of the old one fail.
    @discardableResult
    func adopt(_ fresh: ContentInfo) -> RangeResource {
        var wake: [@Sendable () -> Void] = []
        let result = state.withLock { s -> RangeResource in
            s.validatedAt = .now
            if let known = s.info, Self.sameRepresentation(known, fresh) {
                if s.entry == nil { s.entry = prepareEntry(fresh) }
                return RangeResource(resource: self, generation: s.generation, info: known)
            }
            if s.info != nil {
                configuration.logger.notice("origin changed: \(display); dropping cached ranges and starting over")
                wake = endGeneration(&s, error: RangeOriginError.changed(url: display))
            }
            s.info = fresh
            s.entry = prepareEntry(fresh)
            return RangeResource(resource: self, generation: s.generation, info: fresh)
        }
        wake.forEach { $0() }
        return result
    }

    private func prepareEntry(_ info: ContentInfo) -> CacheEntry? {
        do {
            return try cache.prepare(key, info: info)
        } catch {
            configuration.logger.warning("cache: cannot cache \(display) (\(error)); serving it without caching")
            return nil
        }
    }

    /// Bumps the generation, cancels downloads, fails readers. Returns their wake-ups to call unlocked.
    func endGeneration(_ s: inout ResourceState, error: any Error) -> [@Sendable () -> Void] {
        s.generation += 1
        for d in s.downloads.values { d.task?.cancel() }
        s.downloads.removeAll()
        s.memory.removeAll()
        s.memoryOrder.removeAll()
        var wake: [@Sendable () -> Void] = []
        for id in s.readers.keys where s.readers[id]!.failure == nil {
            s.readers[id]!.failure = error
            if let w = s.readers[id]!.waiter { wake.append(w) }
            s.readers[id]!.waiter = nil
        }
        return wake
    }

    static func sameRepresentation(_ a: ContentInfo, _ b: ContentInfo) -> Bool {
        guard a.length == b.length else { return false }
        if a.etag != nil || b.etag != nil { return a.etag == b.etag }
        return a.lastModified == b.lastModified
    }

    /// When the resource was last used, if nobody reads or downloads it now; nil while it is busy.
    func idleSince() -> ContinuousClock.Instant? {
        state.withLock { s in s.readers.isEmpty && s.downloads.isEmpty ? s.lastUsed : nil }
    }

    func shutdown() {
        let wake = state.withLock { s in endGeneration(&s, error: RangeOriginError.unreachable(url: display, reason: "loader stopped")) }
        wake.forEach { $0() }
    }

    // MARK: readers

    func addReader(_ range: ByteRange, generation: Int) -> Int {
        state.withLock { s in
            s.nextID += 1
            var reader = ReaderState(generation: generation, start: range.offset, end: range.end)
            if generation != s.generation { reader.failure = RangeOriginError.changed(url: display) }
            if let entry = s.entry {
                reader.pin = cache.pin(entry, ByteRange(offset: range.offset, length: min(range.length, configuration.initialWindow)))
            }
            s.readers[s.nextID] = reader
            return s.nextID
        }
    }

    /// Copies the reader's next bytes into `buffer`, or registers `onReady` (called exactly once, later)
    /// and answers `.pending`.
    func read(_ id: Int, into buffer: UnsafeMutableRawBufferPointer, onReady: @escaping @Sendable () -> Void) -> CursorStep {
        while true {
            let phase = state.withLock { s -> Either<CursorStep, (CacheEntry?, Int64, Int64)> in
                guard let r = s.readers[id] else { return .left(.failed(CancellationError())) }
                if let f = r.failure { return .left(.failed(f)) }
                if r.position >= r.end { return .left(.end) }
                let b = block(r.position)
                if let bytes = s.memory[b] {
                    let inBlock = Int(r.position - Int64(b) * blockSize)
                    let n = min(buffer.count, bytes.count - inBlock, Int(r.end - r.position))
                    bytes.withUnsafeBytes { src in
                        buffer.baseAddress!.copyMemory(from: src.baseAddress! + inBlock, byteCount: n)
                    }
                    advance(&s, id, by: n)
                    return .left(.bytes(n))
                }
                return .right((s.entry, r.position, r.end))
            }
            let (entry, position, end): (CacheEntry?, Int64, Int64)
            switch phase {
            case let .left(step): return step
            case let .right(v): (entry, position, end) = v
            }
            if let entry {
                let limit = Int(min(Int64(buffer.count), end - position))
                let got = cache.read(entry, at: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< limit]))
                if case let .bytes(n) = got {
                    let taken = state.withLock { s in
                        guard let r = s.readers[id], r.failure == nil, r.position == position else { return false }
                        advance(&s, id, by: n)
                        return true
                    }
                    if taken { return .bytes(n) }
                    continue
                }
            }
            var retry = false
            let step = state.withLock { s -> CursorStep in
                guard let r = s.readers[id] else { return .failed(CancellationError()) }
                if let f = r.failure { return .failed(f) }
                let b = block(r.position)
                if r.position != position || s.memory[b] != nil || (s.entry.map { cache.isPresent($0, block: b) } ?? false) {
                    retry = true
                    return .pending
                }
                s.readers[id]!.waiter = onReady
                s.readers[id]!.scheduledUntil = 0
                schedule(&s, reader: id)
                return .pending
            }
            if !retry { return step }
        }
    }

    /// Fails the reader (its waiter, if any, is woken) without removing it.
    func cancelReader(_ id: Int) {
        let wake = state.withLock { s -> (@Sendable () -> Void)? in
            guard s.readers[id] != nil else { return nil }
            if s.readers[id]!.failure == nil { s.readers[id]!.failure = CancellationError() }
            defer { s.readers[id]!.waiter = nil }
            return s.readers[id]!.waiter
        }
        wake?()
    }

    /// Removes the reader and stops downloads no one else wants.
    func removeReader(_ id: Int) {
        let wake = state.withLock { s -> (@Sendable () -> Void)? in
            guard let r = s.readers.removeValue(forKey: id) else { return nil }
            s.lastUsed = .now
            if let pin = r.pin { cache.unpin(pin) }
            pruneDownloads(&s)
            return r.waiter
        }
        wake?()
    }

    // MARK: scheduling

    func block(_ position: Int64) -> Int { Int(position / blockSize) }

    private func window(_ r: ReaderState, _ s: ResourceState) -> Int64 {
        var cap = configuration.maxWindow
        if s.entry == nil || s.memoryInUse { cap = min(cap, max(blockSize, configuration.memoryFallback / 2)) }
        return min(cap, max(configuration.initialWindow, r.position - r.start))
    }

    private func advance(_ s: inout ResourceState, _ id: Int, by n: Int) {
        guard var r = s.readers[id] else { return }
        let before = block(r.position)
        r.position += Int64(n)
        s.readers[id] = r
        if block(r.position) != before && r.position < r.end { schedule(&s, reader: id) }
    }

    /// Starts downloads so the reader's read-ahead window is present or on its way. Requests are at least
    /// half a window long: nothing is arranged while more than half the window ahead is already covered.
    func schedule(_ s: inout ResourceState, reader id: Int) {
        guard var r = s.readers[id], r.failure == nil, r.generation == s.generation, r.position < r.end,
              let length = s.info?.length else { return }
        let win = window(r, s)
        let first = block(r.position)
        let last = block(min(r.end, r.position + win) - 1) + 1
        if let pin = r.pin { cache.movePin(pin, to: ByteRange(offset: r.position, length: min(win, length - r.position))) }
        let half = max(1, Int(win / blockSize) / 2)
        if r.scheduledUntil >= min(last, first + half) { return }
        var b = max(first, r.scheduledUntil)
        let present = s.entry.map { cache.presence($0, blocks: b ..< last) } ?? []
        let lookAheadBlocks = Int(configuration.lookAhead / blockSize)
        let b0 = b
        func available(_ i: Int) -> Bool {
            s.memory[i] != nil || (i - b0 < present.count && present[i - b0])
        }
        while b < last {
            if available(b) { b += 1; continue }
            if let (did, d) = s.downloads.first(where: { $0.value.generation == s.generation && $0.value.next <= b && b < $0.value.end }) {
                if b - d.next <= lookAheadBlocks { b = d.end; continue }
                // That download is far behind: let it stop here, and fetch from here separately.
                s.downloads[did]!.end = b
            }
            var e = b + 1
            while e < last && !available(e)
                && !s.downloads.values.contains(where: { $0.generation == s.generation && $0.next <= e && e < $0.end }) {
                e += 1
            }
            startDownload(&s, blocks: b ..< e, length: length)
            b = e
        }
        r.scheduledUntil = max(last, b)
        s.readers[id] = r
    }

    /// Stops downloads that no reader's window (plus look-ahead) reaches any more, after at most the look-ahead:
    /// those bytes are mostly in flight already (socket and transfer buffers), so keeping them costs the origin
    /// nothing more, and a player that seeks back (an mp4 player returning from the index at the end) finds them.
    func pruneDownloads(_ s: inout ResourceState) {
        let lookAheadBlocks = Int(configuration.lookAhead / blockSize)
        for (id, d) in s.downloads {
            let wanted = s.readers.values.contains { r in
                guard r.failure == nil, r.generation == d.generation, r.position < r.end else { return false }
                let first = block(r.position)
                let last = block(min(r.end, r.position + window(r, s)) - 1) + 1 + lookAheadBlocks
                return first < d.end && d.next < last
            }
            if !wanted && d.end > d.next + lookAheadBlocks {
                s.downloads[id]!.end = d.next + lookAheadBlocks
            }
        }
    }
}

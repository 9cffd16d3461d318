import Foundation
import SkyliftCore

// Origin downloads: one task per requested block run, delivering whole blocks to the cache (or to memory
// when the cache cannot take them) and waking the readers.
extension LoaderResource {
    func startDownload(_ s: inout ResourceState, blocks: Range<Int>, length: Int64) {
        s.nextID += 1
        let id = s.nextID
        s.downloads[id] = Download(next: blocks.lowerBound, end: blocks.upperBound, generation: s.generation)
        s.downloads[id]!.task = Task(executorPreference: loader.executor) { await self.runDownload(id) }
    }

    private func runDownload(_ id: Int) async {
        var attempts = 0
        while !Task.isCancelled {
            guard let job = state.withLock({ s -> (URL, ContentInfo, Int, Int)? in
                guard let d = s.downloads[id], d.next < d.end, let info = s.info else { return nil }
                return (s.url, info, d.next, d.end)
            }) else {
                finish(id)
                return
            }
            let (url, info, next, end) = job
            let length = info.length ?? 0
            let range = ByteRange(offset: Int64(next) * blockSize,
                                  length: min(length, Int64(end) * blockSize) - Int64(next) * blockSize)
            attempts += 1
            do {
                let body = try await loader.origin.read(url, range: range, expected: info)
                guard Self.sameRepresentation(info, body.info) else {
                    adopt(body.info)
                    return
                }
                guard body.offset <= range.offset else {
                    throw RangeOriginError.badResponse(url: display, reason: "answer starts at \(body.offset), after \(range.offset)")
                }
                if try await consume(id, body: body, from: next, skipping: range.offset - body.offset, length: length) {
                    return
                }
                attempts = 0
            } catch {
                if Task.isCancelled || error is CancellationError { return }
                if let e = error as? RangeOriginError, case .changed = e {
                    await revalidateAfterChange(url: url, download: id)
                    return
                }
                let progressed = state.withLock { s in (s.downloads[id]?.next ?? next) > next }
                if progressed { attempts = 1 }
                let retriable = (error as? RangeOriginError)?.status.map { $0 >= 500 } ?? true
                if retriable && configuration.retry.allowsAnother(after: attempts) {
                    configuration.logger.info("origin: retrying \(display) after: \(error)")
                    try? await Task.sleep(for: .seconds(configuration.retry.delay(beforeRetry: attempts)))
                    continue
                }
                configuration.logger.error("origin: download of \(display) failed: \(error)")
                fail(id, error: error)
                return
            }
        }
    }

    /// Feeds a body into whole blocks. Returns true when the download is over (done or no longer wanted);
    /// false when the body ended early and the rest should be asked for again.
    private func consume(_ id: Int, body: OriginBody, from first: Int, skipping: Int64, length: Int64) async throws -> Bool {
        var skip = skipping
        var index = first
        var blockLength = Int(cache.blockRange(index, length: length).length)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(blockLength)
        for try await chunk in body.chunks {
            var rest = chunk[...]
            if skip > 0 {
                let n = Int(min(skip, Int64(rest.count)))
                rest = rest.dropFirst(n)
                skip -= Int64(n)
            }
            while !rest.isEmpty {
                let take = min(blockLength - buffer.count, rest.count)
                buffer.append(contentsOf: rest.prefix(take))
                rest = rest.dropFirst(take)
                guard buffer.count == blockLength else { continue }
                if !deliver(id, block: index, bytes: buffer) { return true }
                index += 1
                buffer.removeAll(keepingCapacity: true)
                blockLength = Int(cache.blockRange(index, length: length).length)
                if blockLength == 0 { return true }
            }
        }
        throw RangeOriginError.unreachable(url: display, reason: "body ended before byte \(Int64(index) * blockSize + Int64(buffer.count))")
    }

    /// Puts a block in the cache (or memory), advances the download and wakes readers. Returns false when
    /// the download should stop: it reached its end, was cancelled, or its generation is over.
    private func deliver(_ id: Int, block index: Int, bytes: [UInt8]) -> Bool {
        guard let (entry, generation) = state.withLock({ s -> (CacheEntry?, Int)? in
            guard let d = s.downloads[id], d.generation == s.generation else { return nil }
            return (s.entry, d.generation)
        }) else { return false }
        var stored = false
        var problem: String?
        if let entry {
            do {
                try bytes.withUnsafeBytes { try cache.store(entry, block: index, bytes: $0) }
                stored = true
            } catch {
                problem = "\(error)"
            }
        }
        var wake: [@Sendable () -> Void] = []
        let more = state.withLock { s -> Bool in
            guard var d = s.downloads[id], s.generation == generation else { return false }
            if !stored {
                if !s.uncachedLogged, let problem {
                    configuration.logger.warning("cache: cannot store \(display) (\(problem)); serving it without caching")
                    s.uncachedLogged = true
                }
                keepInMemory(&s, index, bytes)
            }
            d.next = index + 1
            s.downloads[id] = d
            for rid in s.readers.keys {
                if let w = s.readers[rid]!.waiter {
                    wake.append(w)
                    s.readers[rid]!.waiter = nil
                }
            }
            if d.next >= d.end {
                s.downloads[id] = nil
                return false
            }
            return !Task.isCancelled
        }
        wake.forEach { $0() }
        if !more { cache.commit(key) }
        return more
    }

    private func keepInMemory(_ s: inout ResourceState, _ index: Int, _ bytes: [UInt8]) {
        if s.memory[index] == nil { s.memoryOrder.append(index) }
        s.memory[index] = bytes
        let limit = max(2, Int(configuration.memoryFallback / blockSize))
        while s.memoryOrder.count > limit {
            s.memory[s.memoryOrder.removeFirst()] = nil
            for rid in s.readers.keys { s.readers[rid]!.scheduledUntil = 0 }
        }
    }

    private func finish(_ id: Int) {
        state.withLock { s in _ = s.downloads.removeValue(forKey: id) }
        cache.commit(key)
    }

    /// Ends a download: readers waiting for its remaining blocks fail with `error`.
    private func fail(_ id: Int, error: any Error) {
        var wake: [@Sendable () -> Void] = []
        state.withLock { s in
            guard let d = s.downloads.removeValue(forKey: id) else { return }
            for rid in s.readers.keys {
                var r = s.readers[rid]!
                r.scheduledUntil = 0
                if r.failure == nil, r.generation == d.generation, (d.next ..< d.end).contains(block(r.position)) {
                    r.failure = error
                    if let w = r.waiter { wake.append(w) }
                    r.waiter = nil
                }
                s.readers[rid] = r
            }
        }
        wake.forEach { $0() }
        cache.commit(key)
    }

    /// The origin said the representation changed (412, 416): learn the new one, which fails old readers.
    private func revalidateAfterChange(url: URL, download id: Int) async {
        do {
            let fresh = try await loader.origin.contentInfo(of: url)
            let before = state.withLock { $0.generation }
            adopt(fresh)
            if state.withLock({ $0.generation }) == before {
                fail(id, error: RangeOriginError.changed(url: display))
            }
        } catch {
            fail(id, error: error)
        }
    }
}

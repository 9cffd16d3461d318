import Foundation
import SkyliftCore
import SkyliftSystem

extension RangeCache {
    /// Copies cached bytes of `entry` starting at `offset` into `buffer`: as many as are present contiguously,
    /// up to the buffer's size. Blocks not yet checked by this process are verified against their checksums
    /// first; a block that fails is dropped and reported ``CacheRead/missing`` so it gets fetched again.
    public func read(_ entry: CacheEntry, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> CacheRead {
        let key = entry.key.value
        // 1. Under the lock: find the present run, pin it, note which blocks still need a check.
        var plan: ReadPlan? = nil
        let early: CacheRead? = state.withLock { s in
            guard s.records[key]?.epoch == entry.epoch else { return .stale }
            s.nextPin += 1
            let pin = s.nextPin
            // In place: a copy of the record taken out of the dictionary and written back would copy its pins
            // (one per reader) on every read, under the lock every reader of every resource takes.
            switch planRead(&s.records[key]!, at: offset, count: buffer.count, pin: pin) {
            case let .left(step): return step
            case let .right(p): plan = p; return nil
            }
        }
        if let early { return early }
        guard let plan else { return .missing }
        var pinned = true
        defer { if pinned { unpin(CachePin(key: key, id: plan.pin)) } }

        // 2. Outside the lock: check unverified blocks, then copy.
        var run = plan.run
        if !plan.unchecked.isEmpty {
            let (good, bad) = checkBlocks(plan.unchecked, of: entry, in: plan.fd, path: plan.path)
            let stale = state.withLock { s -> Bool in
                guard var record = s.records[entry.key.value], record.epoch == entry.epoch else { return true }
                record.verified.formUnion(good)
                for index in bad {
                    configuration.logger.warning("cache: block \(index) of \(entry.key) failed its checksum; fetching it again")
                    dropBlockLocked(&s, &record, index)
                }
                s.records[entry.key.value] = record
                return false
            }
            if stale { return .stale }
            if let firstBad = bad.min() {
                let badStart = Int64(firstBad) * Int64(configuration.blockSize)
                if badStart <= offset { return .missing }
                run = ByteRange(offset: offset, length: badStart - offset)
            }
        }
        let target = UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< Int(run.length)])
        guard let n = try? plan.fd.read(into: target, at: offset, path: plan.path), n > 0 else { return .missing }
        // One trip through the lock for both: whether the bytes are still this representation's, and the unpin.
        pinned = false
        let intact = state.withLock { s in
            let current = s.records[key]?.epoch == entry.epoch
            unpinLocked(&s, CachePin(key: key, id: plan.pin))
            return current
        }
        return intact ? .bytes(n) : .stale
    }

    /// Reads each of `blocks` (index, checksum) from the data file and compares its checksum, outside
    /// the lock; returns the indexes that passed and those that did not.
    private func checkBlocks(_ blocks: [(Int, UInt64)], of entry: CacheEntry, in fd: FileDescriptor,
                             path: String) -> (good: [Int], bad: [Int]) {
        var good: [Int] = [], bad: [Int] = []
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: configuration.blockSize, alignment: 16)
        defer { scratch.deallocate() }
        for (index, sum) in blocks {
            let r = blockRange(index, length: entry.length)
            let view = UnsafeMutableRawBufferPointer(rebasing: scratch[0 ..< Int(r.length)])
            let n = (try? fd.read(into: view, at: r.offset, path: path)) ?? -1
            if n == Int(r.length) && CacheBlockDigest.of(UnsafeRawBufferPointer(view)) == sum {
                good.append(index)
            } else {
                bad.append(index)
            }
        }
        return (good, bad)
    }

    /// What a read copies outside the lock: the descriptor, the present run from the offset, blocks still to check.
    struct ReadPlan {
        var fd: FileDescriptor
        var path: String
        var run: ByteRange
        var unchecked: [(Int, UInt64)]
        var pin: UInt64
    }

    /// Under the lock: the run of present blocks at `offset` (up to `count` bytes), pinned as `pin`; or why not.
    private func planRead(_ record: inout Record, at offset: Int64, count: Int, pin: UInt64) -> Either<CacheRead, ReadPlan> {
        let bs = Int64(configuration.blockSize)
        let length = record.map.metadata.length
        if offset >= length { return .left(.end) }
        let first = Int(offset / bs)
        guard record.map.blocks[first] != nil else { return .left(.missing) }
        let wanted = min(length, offset + Int64(count))
        var index = first
        var unchecked: [(Int, UInt64)] = []
        while Int64(index) * bs < wanted, let sum = record.map.blocks[index] {
            if !record.verified.contains(index) { unchecked.append((index, sum)) }
            index += 1
        }
        let runEnd = min(wanted, Int64(index) * bs)
        guard let fd = openLocked(&record) else { return .left(.missing) }
        let run = ByteRange(offset: offset, length: runEnd - offset)
        record.pins[pin] = run
        record.map.metadata.lastAccess = Date().timeIntervalSince1970
        return .right(ReadPlan(fd: fd, path: record.dataPath, run: run, unchecked: unchecked, pin: pin))
    }

    /// Stores block `index` of `entry`. `bytes` must be the whole block (shorter only for the last one).
    ///
    /// Throws ``RangeCacheError/full(limit:)`` when nothing evictable makes room, ``RangeCacheError/diskFull(path:)``
    /// when the disk is full, ``RangeCacheError/stale(key:)`` when the entry was reset meanwhile.
    public func store(_ entry: CacheEntry, block index: Int, bytes: UnsafeRawBufferPointer) throws {
        let range = blockRange(index, length: entry.length)
        guard range.length > 0, Int64(bytes.count) == range.length else {
            throw RangeCacheError.io(call: "store", path: entry.key.description,
                                     reason: "block \(index) needs \(range.length) bytes, got \(bytes.count)")
        }
        // Entries evicted below to make room have their files deleted after the lock is released.
        defer { deleteRemovedFiles() }
        let target: (fd: FileDescriptor, path: String, pin: CachePin)? = try state.withLock { s in
            guard var record = s.records[entry.key.value], record.epoch == entry.epoch else {
                throw RangeCacheError.stale(key: entry.key.description)
            }
            if record.map.blocks[index] != nil { return nil }
            guard evictLocked(&s, toFit: range.length, sparing: entry.key.value) else {
                throw RangeCacheError.full(limit: configuration.maxSize)
            }
            record = s.records[entry.key.value]!
            guard let fd = openLocked(&record) else {
                throw RangeCacheError.io(call: "open", path: record.name, reason: "cannot open data file")
            }
            s.size += range.length
            // The pin keeps the descriptor open even if the entry is reset while the write runs.
            s.nextPin += 1
            record.pins[s.nextPin] = range
            s.records[entry.key.value] = record
            return (fd, record.dataPath, CachePin(key: entry.key.value, id: s.nextPin))
        }
        guard let target else { return }
        defer { unpin(target.pin) }
        let sum = CacheBlockDigest.of(bytes)
        do {
            try target.fd.writeAll(bytes, at: range.offset, path: target.path)
        } catch {
            state.withLock { s in s.size -= range.length }
            if error.isNoSpace { target.fd.punchHole(offset: range.offset, length: range.length) }
            throw mapped(error)
        }
        let due = try state.withLock { s -> Bool in
            guard var record = s.records[entry.key.value], record.epoch == entry.epoch,
                  record.map.blocks[index] == nil else {
                s.size -= range.length
                if s.records[entry.key.value]?.epoch != entry.epoch { throw RangeCacheError.stale(key: entry.key.description) }
                return false
            }
            record.map.blocks[index] = sum
            record.verified.insert(index)
            record.uncommitted += range.length
            record.markDirty()
            record.map.metadata.lastAccess = Date().timeIntervalSince1970
            s.records[entry.key.value] = record
            return record.uncommitted >= configuration.commitInterval
        }
        // Committed after the cache-wide lock is released: the flushes must not hold up other resources.
        if due { commit(key: entry.key.value) }
    }

    /// For each block in `blocks`, whether it is present (all false when the entry is stale).
    public func presence(_ entry: CacheEntry, blocks: Range<Int>) -> [Bool] {
        state.withLock { s in
            guard let record = s.records[entry.key.value], record.epoch == entry.epoch else {
                return [Bool](repeating: false, count: blocks.count)
            }
            return blocks.map { record.map.blocks[$0] != nil }
        }
    }

    /// Keeps `range` of `entry` from eviction until ``unpin(_:)``.
    public func pin(_ entry: CacheEntry, _ range: ByteRange) -> CachePin {
        state.withLock { s in
            s.nextPin += 1
            s.records[entry.key.value]?.pins[s.nextPin] = range
            return CachePin(key: entry.key.value, id: s.nextPin)
        }
    }

    /// Moves a pin to another range of the same resource (a reader moving forward).
    public func movePin(_ pin: CachePin, to range: ByteRange) {
        state.withLock { s in
            if s.records[pin.key]?.pins[pin.id] != nil { s.records[pin.key]?.pins[pin.id] = range }
        }
    }

    public func unpin(_ pin: CachePin) {
        state.withLock { s in unpinLocked(&s, pin) }
    }

    func unpinLocked(_ s: inout State, _ pin: CachePin) {
        if s.records[pin.key]?.pins.removeValue(forKey: pin.id) != nil { return }
        // The entry was removed while pinned: its descriptor waits here for its last pin.
        for (fd, var pins) in s.retired where pins.remove(pin.id) != nil {
            if pins.isEmpty {
                s.retired[fd] = nil
                fd.close()
            } else {
                s.retired[fd] = pins
            }
            return
        }
    }

    func openLocked(_ record: inout Record) -> FileDescriptor? {
        if let fd = record.fd { return fd }
        let path = record.dataPath
        guard let fd = try? FileDescriptor.open(path, .readWrite) else {
            configuration.logger.error("cache: cannot open \(path)")
            return nil
        }
        record.fd = fd
        return fd
    }

    func dropBlockLocked(_ s: inout State, _ record: inout Record, _ index: Int) {
        guard record.map.blocks.removeValue(forKey: index) != nil else { return }
        record.verified.remove(index)
        let r = blockRange(index, length: record.map.metadata.length)
        s.size -= r.length
        record.markDirty()
        record.fd?.punchHole(offset: r.offset, length: r.length)
    }
}

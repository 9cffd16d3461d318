import Foundation
import SkyliftCore
import SkyliftSystem

// Loading, committing, removing and evicting: the parts that touch the directory layout.
extension RangeCache {
    /// Rebuilds `resources/` when the directory's format line is missing or from another version.
    static func checkFormat(directory: String, resources: String, logger: Logger) throws {
        let formatPath = directory + "/FORMAT"
        let fm = FileManager.default
        let current = (try? String(contentsOfFile: formatPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        if current != formatLine {
            if fm.fileExists(atPath: resources) {
                logger.notice("cache: \(directory) has format \(current ?? "unknown"); rebuilding it")
                try? fm.removeItem(atPath: resources)
            }
            do {
                try AtomicFile.replace(formatPath, with: Array((formatLine + "\n").utf8))
            } catch {
                throw RangeCacheError.unusableDirectory(path: directory, reason: "cannot write \(formatPath)")
            }
        }
        do {
            try PrivateFiles.createDirectory(resources)
        } catch {
            throw RangeCacheError.unusableDirectory(path: resources, reason: "\(error)")
        }
    }

    /// Reads every map; damaged ones (and their data, and data without a map) are deleted.
    static func load(resources: String, configuration: Configuration) -> State {
        var state = State()
        let fm = FileManager.default
        let names = (try? fm.contentsOfDirectory(atPath: resources)) ?? []
        var keep: Set<String> = []
        for file in names where file.hasSuffix(".map") {
            let name = String(file.dropLast(4))
            let mapPath = resources + "/" + file, dataPath = resources + "/" + name + ".data"
            guard let bytes = fm.contents(atPath: mapPath).map(Array.init), let map = ResourceMap(decoding: bytes),
                  map.metadata.blockSize == configuration.blockSize, (0...Self.maxResourceLength).contains(map.metadata.length),
                  name == fileName(for: CacheKey(normalized: map.metadata.key)) else {
                configuration.logger.warning("cache: dropping damaged entry \(mapPath)")
                continue
            }
            let blockCount = (map.metadata.length + Int64(configuration.blockSize) - 1) / Int64(configuration.blockSize)
            guard map.blocks.keys.allSatisfy({ $0 >= 0 && Int64($0) < blockCount }),
                  let fd = try? FileDescriptor.open(dataPath, .readWrite),
                  (try? fd.status(path: dataPath).size) == map.metadata.length else {
                configuration.logger.warning("cache: dropping inconsistent entry \(mapPath)")
                continue
            }
            state.nextEpoch += 1
            let record = Record(name: name, dataPath: dataPath, map: map, fd: fd, epoch: state.nextEpoch)
            for index in map.blocks.keys {
                let start = Int64(index) * Int64(configuration.blockSize)
                state.size += min(Int64(configuration.blockSize), map.metadata.length - start)
            }
            state.records[map.metadata.key] = record
            keep.insert(name)
        }
        for file in names {
            let name = file.hasSuffix(".map") ? String(file.dropLast(4))
                : file.hasSuffix(".data") ? String(file.dropLast(5)) : file
            if !keep.contains(name) { try? fm.removeItem(atPath: resources + "/" + file) }
        }
        return state
    }

    /// Flushes the data file, then replaces the map (``AtomicFile``) with one naming the blocks written so far.
    ///
    /// The flushes and the rename run under the resource's key lock only: the cache-wide lock is taken
    /// briefly before (to copy the map and pin the descriptor open) and after (to mark it committed).
    func commit(key: String) {
        keyLocks.withLock(key) {
            guard let job = state.withLock({ s in commitJobLocked(&s, key: key) }) else { return }
            defer { unpin(job.pin) }
            let base = resourcesPath + "/" + job.name
            do throws(FileError) {
                try job.fd?.syncData(path: base + ".data")
                try AtomicFile.replace(base + ".map", with: job.bytes, temporary: base + ".map.tmp")
            } catch {
                configuration.logger.error("cache: cannot save the map of \(CacheKey(normalized: key)): \(mapped(error))")
                return
            }
            let removed = state.withLock { s -> Bool in
                guard var record = s.records[key], record.epoch == job.epoch else { return !s.closed }
                record.uncommitted = max(0, record.uncommitted - job.uncommitted)
                if record.changes == job.changes { record.dirty = false }
                s.records[key] = record
                return false
            }
            // Removed while its map was written: the map just renamed into place names nothing.
            if removed { Directory.remove(base + ".map") }
        }
    }

    /// What a commit writes, copied under the cache-wide lock, with a pin keeping the descriptor open.
    private func commitJobLocked(_ s: inout State, key: String) -> CommitJob? {
        guard var record = s.records[key], record.dirty else { return nil }
        let bytes: [UInt8]
        do { bytes = try record.map.encoded() } catch {
            configuration.logger.error("cache: cannot save the map of \(CacheKey(normalized: key)): \(error)")
            return nil
        }
        s.nextPin += 1
        record.pins[s.nextPin] = ByteRange(offset: 0, length: 0)
        s.records[key] = record
        return CommitJob(fd: record.fd, name: record.name, epoch: record.epoch, changes: record.changes,
                         uncommitted: record.uncommitted, bytes: bytes, pin: CachePin(key: key, id: s.nextPin))
    }

    /// Forgets `key`; its files are deleted by ``deleteRemovedFiles()`` once the lock is released.
    func removeLocked(_ s: inout State, key: String) {
        guard let record = s.records.removeValue(forKey: key) else { return }
        s.removed.append((key, record.name))
        for index in record.map.blocks.keys { s.size -= blockRange(index, length: record.map.metadata.length).length }
        if let fd = record.fd {
            if record.pins.isEmpty { fd.close() } else { s.retired[fd] = Set(record.pins.keys) }
        }
    }

    /// Deletes the files of entries removed so far; call with no lock held. Each is deleted under its key
    /// lock and only while no new entry for the key exists (``prepare(_:info:)`` may have made one meanwhile,
    /// and deletes stale files itself). The map goes first, so a crash midway leaves no entry.
    func deleteRemovedFiles() {
        let removed = state.withLock { s in
            defer { s.removed.removeAll() }
            return s.removed
        }
        for (key, name) in removed {
            keyLocks.withLock(key) {
                guard state.withLock({ $0.records[key] == nil }) else { return }
                let base = resourcesPath + "/" + name
                Directory.remove(base + ".map")
                Directory.remove(base + ".data")
            }
        }
    }

    /// Evicts least-recently-used bytes until `bytes` more fit under the limit. Pinned ranges are never
    /// evicted; whole entries go first, then unpinned blocks of entries in use (oldest entry, lowest blocks
    /// first). Returns false when not enough could be freed.
    func evictLocked(_ s: inout State, toFit bytes: Int64, sparing: String?) -> Bool {
        let limit = configuration.maxSize
        if s.size + bytes <= limit { return true }
        let order = s.records.sorted { $0.value.map.metadata.lastAccess < $1.value.map.metadata.lastAccess }.map(\.key)
        for key in order where key != sparing && s.records[key]?.pins.isEmpty == true {
            configuration.logger.debug("cache: evicting \(CacheKey(normalized: key))")
            removeLocked(&s, key: key)
            if s.size + bytes <= limit { return true }
        }
        for key in order {
            guard var record = s.records[key] else { continue }
            for index in record.map.blocks.keys.sorted() {
                let r = blockRange(index, length: record.map.metadata.length)
                if record.isPinned(r) { continue }
                dropBlockLocked(&s, &record, index)
                if s.size + bytes <= limit { break }
            }
            s.records[key] = record
            if s.size + bytes <= limit { return true }
        }
        return s.size + bytes <= limit
    }
}

/// One commit's copy of a record: what to flush and write, and how to recognise the record afterwards.
struct CommitJob {
    var fd: FileDescriptor?
    var name: String
    var epoch: Int
    var changes: Int
    var uncommitted: Int64
    var bytes: [UInt8]
    var pin: CachePin
}

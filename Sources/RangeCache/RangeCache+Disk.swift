import Foundation
import SkyliftCore

// Loading, committing, removing and evicting: the parts that touch the directory layout.
extension RangeCache {
    /// Rebuilds `resources/` when the directory's format line is missing or from another version.
    static func checkFormat(directory: String, resources: String, log: @Sendable (String) -> Void) throws {
        let formatPath = directory + "/FORMAT"
        let fm = FileManager.default
        let current = (try? String(contentsOfFile: formatPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        if current != formatLine {
            if fm.fileExists(atPath: resources) {
                log("cache: \(directory) has format \(current ?? "unknown"); rebuilding it")
                try? fm.removeItem(atPath: resources)
            }
            do {
                try PrivateFiles.replace(formatPath, with: Array((formatLine + "\n").utf8))
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
    static func load(resources: String, configuration: Configuration, io: any CacheFileIO) -> State {
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
                configuration.log("cache: dropping damaged entry \(mapPath)")
                continue
            }
            let blockCount = (map.metadata.length + Int64(configuration.blockSize) - 1) / Int64(configuration.blockSize)
            guard map.blocks.keys.allSatisfy({ $0 >= 0 && Int64($0) < blockCount }),
                  let fd = try? io.open(dataPath, create: false),
                  (try? io.length(fd, path: dataPath)) == map.metadata.length else {
                configuration.log("cache: dropping inconsistent entry \(mapPath)")
                continue
            }
            state.nextEpoch += 1
            var record = Record(name: name, map: map, fd: fd, epoch: state.nextEpoch)
            record.dirty = false
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

    /// Flushes the data file, then atomically replaces the map with one naming the blocks written so far.
    func commitLocked(_ s: inout State, key: String) {
        guard var record = s.records[key], record.dirty else { return }
        let base = resourcesPath + "/" + record.name
        do {
            if let fd = record.fd { try io.syncData(fd, path: base + ".data") }
            let bytes = try record.map.encoded()
            let tmp = base + ".map.tmp"
            let fd = try io.open(tmp, create: true)
            defer { io.close(fd) }
            try io.setLength(fd, 0, path: tmp)
            try bytes.withUnsafeBytes { try io.write(fd, $0, at: 0, path: tmp) }
            try io.sync(fd, path: tmp)
            guard rename(tmp, base + ".map") == 0 else {
                throw CacheIOError(call: "rename", path: tmp, errno: errno)
            }
            io.syncDirectory(resourcesPath)
            record.dirty = false
            record.uncommitted = 0
            s.records[key] = record
        } catch let e as CacheIOError {
            configuration.log("cache: cannot save the map of \(CacheKey(normalized: key)): \(mapped(e))")
        } catch {
            configuration.log("cache: cannot save the map of \(CacheKey(normalized: key)): \(error)")
        }
    }

    /// Forgets `key` and deletes its files; the map goes first so a crash midway leaves no entry.
    func removeLocked(_ s: inout State, key: String) {
        guard let record = s.records.removeValue(forKey: key) else { return }
        let base = resourcesPath + "/" + record.name
        unlink(base + ".map")
        unlink(base + ".data")
        for index in record.map.blocks.keys { s.size -= blockRange(index, length: record.map.metadata.length).length }
        if let fd = record.fd {
            if record.pins.isEmpty { io.close(fd) } else { s.retired[fd] = Set(record.pins.keys) }
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
            configuration.log("cache: evicting \(CacheKey(normalized: key))")
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

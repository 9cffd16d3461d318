import SkyliftCore
import SkyliftSystem

/// Bookkeeping for one resource, guarded by the cache's mutex.
struct Record {
    var name: String
    /// The data file's path, made once: every read names it (for its errors).
    let dataPath: String
    var map: ResourceMap
    var fd: FileDescriptor?
    var epoch: Int
    /// Blocks whose bytes were written or checked by this process, so need no checksum on read.
    var verified: Set<Int> = []
    var pins: [UInt64: ByteRange] = [:]
    var uncommitted: Int64 = 0
    /// The map has changes not yet on disk.
    var dirty = false
    /// Counts changes, so a commit can tell whether the map changed while it was being written.
    var changes = 0

    init(name: String, dataPath: String, map: ResourceMap, fd: FileDescriptor?, epoch: Int) {
        self.name = name
        self.dataPath = dataPath
        self.map = map
        self.fd = fd
        self.epoch = epoch
    }

    mutating func markDirty() {
        dirty = true
        changes += 1
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
    var retired: [FileDescriptor: Set<UInt64>] = [:]
    /// Entries removed whose files still need deleting (key, file name), outside the lock.
    var removed: [(key: String, name: String)] = []
}

import Foundation
import SkyliftRangeCache
import SkyliftCore
import TestProbes

/// Deterministic pseudo-random bytes, so failures reproduce.
func patternBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    return (0..<count).map { _ in
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}

extension RangeCache {
    /// Stores every block of `bytes` whose index is in `blocks`.
    func storeBlocks(_ entry: CacheEntry, _ bytes: [UInt8], _ blocks: some Sequence<Int>) throws {
        for index in blocks {
            let r = blockRange(index, length: Int64(bytes.count))
            try bytes[Int(r.offset) ..< Int(r.end)].withUnsafeBytes { try store(entry, block: index, bytes: $0) }
        }
    }

    /// Reads `range` fully, or nil when any byte is not cached.
    func readAll(_ entry: CacheEntry, _ range: ByteRange) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: Int(range.length))
        var done = 0
        while done < out.count {
            let r = out.withUnsafeMutableBytes { buf in
                read(entry, at: range.offset + Int64(done), into: UnsafeMutableRawBufferPointer(rebasing: buf[done...]))
            }
            guard case let .bytes(n) = r else { return nil }
            done += n
        }
        return out
    }
}

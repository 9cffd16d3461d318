import SkyliftCore

extension LoaderResource {
    /// All of `range` into `buffer` (exactly `range.length` bytes) when the cache holds every byte now and the
    /// representation is still `generation`; false otherwise, with nothing registered or scheduled.
    func readCached(_ range: ByteRange, generation: Int, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard Int64(buffer.count) == range.length,
              let entry = state.withLock({ s in s.generation == generation ? s.entry : nil }) else { return false }
        var filled = 0
        while filled < buffer.count {
            let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
            guard case let .bytes(n) = cache.read(entry, at: range.offset + Int64(filled), into: rest), n > 0 else {
                return false
            }
            filled += n
        }
        // The bytes are the representation's only if it did not change while they were read.
        return state.withLock { s in
            s.lastUsed = .now
            return s.generation == generation
        }
    }
}

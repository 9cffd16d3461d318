import Foundation

// Read-ahead (asynchronous mode): the block after the one being read is filled on the fill queue.
extension BlobStreamEngine {
    /// Starts reading the next block the consumer will want into the buffer `current` does not use.
    func scheduleFill(_ s: inout State) {
        guard let fillQueue, !s.filling, s.status == .open || s.status == .reading else { return }
        let target: Int64
        if let current = s.current, current.covers(s.position) { target = current.end } else { target = s.position }
        guard target < s.length, !(s.spare?.covers(target) ?? false) else { return }
        let index = s.current.map { 1 - $0.index } ?? 0
        s.filling = true
        s.spare = nil
        fillQueue.async { [self] in
            let result = Result { try reader.readBlock(into: block(index), at: target) }
            state.withLock { s in
                s.filling = false
                guard s.status == .open || s.status == .reading else { return }
                switch result {
                case let .success(n):
                    s.spare = Block(index: index, start: target, count: n)
                    if s.status == .open, !(s.current?.covers(s.position) ?? false) { postAvailability(&s) }
                    s.wakeWaiters()
                    scheduleFill(&s)
                case let .failure(error):
                    fail(&s, error)
                }
            }
            deliverEvents()
        }
    }

    func block(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: storage[index], count: blockSize)
    }
}

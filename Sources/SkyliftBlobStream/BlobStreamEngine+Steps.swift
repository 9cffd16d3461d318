import Foundation

// What a read does next, decided under the lock; `read` then does it outside the lock.
extension BlobStreamEngine {
    enum Step {
        /// Copy `count` bytes at `from` in buffer `index`; the position has already moved past them.
        case copy(index: Int, from: Int, count: Int)
        case done(Int)
        case wait(DispatchSemaphore)
        case fill(Int64)
        /// Read `count` bytes at the offset straight into the caller's buffer.
        case direct(Int64, Int)
        case waitForOpen(DispatchSemaphore)
    }

    func nextStep(_ s: inout State, maxLength len: Int) -> Step {
        switch s.status {
        case .notOpen, .closed, .error: return .done(-1)
        case .atEnd: return .done(0)
        case .opening:
            let w = DispatchSemaphore(value: 0)
            s.waiters.append(w)
            return .waitForOpen(w)
        default: break
        }
        if s.position >= s.length {
            reachEnd(&s)
            return .done(0)
        }
        if let current = s.current, current.covers(s.position) {
            let n = min(len, Int(current.end - s.position))
            let from = Int(s.position - current.start)
            s.position += Int64(n)
            s.status = .open
            if s.position >= s.length { reachEnd(&s) } else { afterConsuming(&s) }
            return .copy(index: current.index, from: from, count: n)
        }
        if fillQueue == nil {
            s.status = .reading
            // A read of a whole block or more gains nothing from the cache: fill the caller's buffer directly
            // and spare a copy. The cached block stays as it was.
            if len >= blockSize { return .direct(s.position, Int(min(Int64(len), s.length - s.position))) }
            return .fill(s.position)
        }
        if let spare = s.spare, spare.covers(s.position) {
            s.current = spare
            s.spare = nil
            scheduleFill(&s)
            return nextStep(&s, maxLength: len)
        }
        s.status = .reading
        scheduleFill(&s)
        let w = DispatchSemaphore(value: 0)
        s.waiters.append(w)
        return .wait(w)
    }

    func reachEnd(_ s: inout State) {
        guard s.status != .atEnd else { return }
        s.status = .atEnd
        post(&s, .endEncountered)
    }

    func afterConsuming(_ s: inout State) {
        if fillQueue != nil { scheduleFill(&s) }
        postAvailability(&s)
    }
}

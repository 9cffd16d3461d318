import Synchronization

/// Wakes idle upload workers when work arrives. A worker reads `generation` before looking for work and
/// waits only if no notification came since, so a wake-up between the two is never lost. Nothing runs
/// while workers wait without a deadline.
final class WorkSignal: Sendable {
    private struct State {
        var generation = 0
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Timeouts or cancellations that fired before their waiter was stored.
        var fired: Set<Int> = []
    }

    private let state = Mutex(State())

    var generation: Int { state.withLock { $0.generation } }

    func notifyAll() {
        let waiting = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.generation += 1
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for w in waiting { w.resume() }
    }

    /// Waits until notified after `generation`, until `seconds` pass (nil: no deadline), or cancellation.
    func wait(after generation: Int, seconds: Double?) async {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        let timeout = seconds.map { delay in
            Task { [weak self] in
                try? await Task.sleep(for: .milliseconds(Int(max(0, delay) * 1000) + 1))
                self?.resume(id)
            }
        }
        defer {
            timeout?.cancel()
            state.withLock { _ = $0.fired.remove(id) }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.fired.remove(id) != nil || s.generation != generation || Task.isCancelled { return true }
                    s.waiters[id] = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            resume(id)
        }
    }

    private func resume(_ id: Int) {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let w = s.waiters.removeValue(forKey: id) else {
                s.fired.insert(id)
                return nil
            }
            return w
        }
        waiter?.resume()
    }
}

import Dispatch
import Synchronization

/// The threads behind one ``BlockingExecutor``: a FIFO of jobs and at most `limit` named threads taking them.
///
/// Threads start on demand, one per job that finds no idle thread while fewer than `limit` run, and end after
/// `idleTimeout` seconds without work, so an executor that is used rarely (or released) holds no thread.
/// A job never waits for a thread while fewer than `limit` are busy.
///
/// `wake` counts hand-offs: an enqueue that finds a registered idle thread takes one registration (`idle`)
/// and signals once. A thread whose wait timed out retires one registration if any is left; if none is, a
/// signal meant for it is on its way and it waits again. So every signalled job is taken by some thread.
final class WorkerThreads: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var first = 0
        var threads = 0
        var idle = 0

        mutating func next() -> (@Sendable () -> Void)? {
            guard first < jobs.count else { return nil }
            let job = jobs[first]
            first += 1
            if first == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                first = 0
            } else if first >= 1024 && first * 2 >= jobs.count {
                jobs.removeFirst(first)
                first = 0
            }
            return job
        }
    }

    let name: String
    let limit: Int
    private let idleTimeout: Double
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    init(name: String, limit: Int, idleTimeout: Double) {
        precondition(limit > 0, "an executor needs at least one thread")
        self.name = name
        self.limit = limit
        self.idleTimeout = idleTimeout
    }

    /// Queues `job`; it runs on one of the threads, after every job queued before it has started.
    func submit(_ job: @escaping @Sendable () -> Void) {
        enum Action { case none, signal, spawn }
        let action = state.withLock { s -> Action in
            s.jobs.append(job)
            if s.idle > 0 {
                s.idle -= 1
                return .signal
            }
            guard s.threads < limit else { return .none }
            s.threads += 1
            return .spawn
        }
        switch action {
        case .none: break
        case .signal: wake.signal()
        case .spawn: startThread(name: name) { [self] in work() }
        }
    }

    /// Threads running now (busy or idle), for tests and diagnostics.
    var threadCount: Int { state.withLock { $0.threads } }

    /// One thread's life: take jobs until none comes for `idleTimeout` seconds.
    private func work() {
        while true {
            if let job = state.withLock({ s -> (@Sendable () -> Void)? in
                if let job = s.next() { return job }
                s.idle += 1
                return nil
            }) {
                job()
                continue
            }
            if wake.wait(timeout: .now() + idleTimeout) == .success { continue }
            let retire = state.withLock { s -> Bool in
                guard s.idle > 0 else { return false }
                s.idle -= 1
                s.threads -= 1
                return true
            }
            if retire { return }
            // No registration left to retire: an enqueue took ours and its signal is on the way.
            wake.wait()
        }
    }
}

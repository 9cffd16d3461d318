import CMicroHTTPD
import Dispatch
import SkyliftSystem
import Synchronization
import Foundation

/// Connections held out of the event loops while their request waits: for work run on the server's work
/// threads (a blocking head, a receiver's `finish`, a blocking producer's next piece), or for a producer's wake.
///
/// libmicrohttpd lets a suspended connection be resumed from any thread, but never after the daemon stopped,
/// and the daemon must not stop while one is suspended. So every suspension goes through here: stopping refuses
/// new ones, resumes the parked ones and waits for the running work to end (its end resumes its connection).
final class Suspensions: Sendable {
    private struct State {
        var stopping = false
        var running = 0
        /// Producers waiting for a wake, by their box: the connection to resume.
        var parked: [ObjectIdentifier: UInt] = [:]
        /// Wakes that came before their producer parked.
        var early: Set<ObjectIdentifier> = []
    }

    /// Where the waiting work runs: a bounded pool, so a flood of slow requests queues instead of growing threads.
    let executor: BlockingExecutor
    private let state = Mutex(State())

    init(threads: Int) {
        executor = BlockingExecutor(name: "skylift-http", threads: threads, idleTimeout: 5)
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Suspends `connection` (call it from one of its callbacks) and runs `work` on the work threads; the
    /// connection resumes when `work` returns. False when the server is stopping: nothing was started.
    func offload(_ connection: OpaquePointer, _ work: @escaping @Sendable () -> Void) -> Bool {
        let started = state.withLock { s -> Bool in
            guard !s.stopping else { return false }
            s.running += 1
            return true
        }
        guard started else { return false }
        MHD_suspend_connection(connection)
        let raw = UInt(bitPattern: Int(bitPattern: UnsafeMutableRawPointer(connection)))
        executor.execute { [self] in
            work()
            state.withLock { s in
                s.running -= 1
                MHD_resume_connection(OpaquePointer(bitPattern: raw))
            }
        }
        return true
    }

    /// Parks `connection` until ``wake(_:)`` for `token`. False when it must not wait: the wake already came
    /// (call the producer again) or the server is stopping (fail the response).
    func park(_ token: ObjectIdentifier, _ connection: OpaquePointer) -> Bool {
        state.withLock { s in
            if s.early.remove(token) != nil || s.stopping { return false }
            MHD_suspend_connection(connection)
            s.parked[token] = UInt(bitPattern: Int(bitPattern: UnsafeMutableRawPointer(connection)))
            return true
        }
    }

    /// The producer behind `token` can go on: resumes its connection, or remembers the wake for its next park.
    func wake(_ token: ObjectIdentifier) {
        state.withLock { s in
            if let raw = s.parked.removeValue(forKey: token) {
                MHD_resume_connection(OpaquePointer(bitPattern: raw))
            } else if !s.stopping {
                s.early.insert(token)
            }
        }
    }

    /// The response behind `token` is gone: a late wake must not be kept.
    func forget(_ token: ObjectIdentifier) {
        state.withLock { s in _ = s.early.remove(token) }
    }

    /// Refuses new suspensions, resumes parked connections, and waits (at most `timeout` seconds) for running
    /// work to resume its own. True when nothing is left suspended.
    func stopAll(timeout: Double = 30) -> Bool {
        state.withLock { s in
            s.stopping = true
            for raw in s.parked.values { MHD_resume_connection(OpaquePointer(bitPattern: raw)) }
            s.parked = [:]
            s.early = []
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while state.withLock({ $0.running }) > 0 {
            if DispatchTime.now().uptimeNanoseconds > deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }
}

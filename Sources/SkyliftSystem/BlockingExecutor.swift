import Dispatch
import Synchronization

/// The one executor for work that blocks or that blocking code waits on: tasks' jobs run on a serial
/// dispatch queue of its own instead of Swift's shared cooperative pool.
///
/// The pool has one thread per core, and its threads may be the very ones blocked: code that waits
/// synchronously for async work (a blocking `InputStream.read`, a connection thread of the embedded HTTP
/// server) deadlocks if that work needs a pool thread, and a few such waits stall every other task. A
/// dispatch queue always gets a thread. One real case: URLSession on Linux opens body streams on its own
/// work queue while pool threads wait in `dataTask(with:)`; an open that needed a pool thread would hang.
///
/// Jobs on one executor run one at a time, so the work given to it should be short steps (copy a chunk,
/// write a block) or waits, not long computations.
public final class BlockingExecutor: TaskExecutor {
    private let queue: DispatchQueue

    public init(label: String) { queue = DispatchQueue(label: label) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// `runBlocking` gave up waiting; the work was cancelled.
    public struct TimedOut: Error, Equatable {
        public init() {}
    }

    /// Runs `work` on this executor and blocks the calling thread until it finishes, or until `timeout`
    /// seconds have passed: then the work is cancelled and ``TimedOut`` thrown. Never call it from this
    /// executor's own jobs or from the cooperative pool.
    public func runBlocking<T: Sendable>(timeout: Double? = nil,
                                         _ work: @escaping @Sendable () async throws -> T) throws -> T {
        let rendezvous = Rendezvous<T>()
        let task = Task(executorPreference: self) {
            do { rendezvous.fulfil(.success(try await work())) } catch { rendezvous.fulfil(.failure(error)) }
        }
        guard let result = rendezvous.wait(timeout: timeout) else {
            task.cancel()
            throw TimedOut()
        }
        return try result.get()
    }

    /// Calls `start` and blocks the calling thread until the completion it was given is called: the bridge
    /// from a callback API to blocking code. The completion must not need the blocked thread to run.
    public static func waitFor<T: Sendable>(_ start: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Void)
        -> Result<T, any Error> {
        let rendezvous = Rendezvous<T>()
        start { rendezvous.fulfil($0) }
        // Without a timeout, wait(timeout:) only returns once fulfilled.
        return rendezvous.wait(timeout: nil) ?? .failure(TimedOut())
    }
}

/// One result handed from the thread that produces it to one thread blocked waiting for it.
private final class Rendezvous<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func fulfil(_ value: Result<T, any Error>) {
        result.withLock { $0 = value }
        done.signal()
    }

    /// The result, or nil when `timeout` seconds passed first.
    func wait(timeout: Double?) -> Result<T, any Error>? {
        if let timeout {
            guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        } else {
            done.wait()
        }
        return result.withLock { $0 }
    }
}

import Dispatch
import Synchronization

/// The one kind of executor for work that blocks or that blocking code waits on: a named set of at most
/// `threads` threads of its own, instead of Swift's shared cooperative pool.
///
/// The pool has one thread per core, and its threads may be the very ones blocked: code that waits
/// synchronously for async work (a blocking `InputStream.read`, a connection thread of the embedded HTTP
/// server) deadlocks if that work needs a pool thread, and a few such waits stall every other task. Here a
/// job waits only for a thread of its own executor. One real case: URLSession on Linux opens body streams on
/// its own work queue while pool threads wait in `dataTask(with:)`; an open that needed a pool thread would hang.
///
/// Jobs start in the order they were queued. With `threads: 1` they also run one at a time (a serial
/// executor: what confines a C handle, as SQLite's). With more, up to `threads` run side by side and one
/// that blocks holds up only itself until all threads are blocked: size an executor for the waits it takes.
/// Threads are named `name` (visible in `ps -L`, `top -H` and debuggers), start when work comes and end
/// after `idleTimeout` seconds without any.
public final class BlockingExecutor: TaskExecutor {
    private let workers: WorkerThreads

    /// The threads' name.
    public var name: String { workers.name }
    /// Most threads this executor runs at once.
    public var threadLimit: Int { workers.limit }
    /// Threads running now, busy or idle (diagnostics and tests).
    public var threadCount: Int { workers.threadCount }

    public init(name: String, threads: Int = 1, idleTimeout: Double = 2) {
        workers = WorkerThreads(name: name, limit: threads, idleTimeout: idleTimeout)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        workers.submit { job.runSynchronously(on: executor) }
    }

    /// Runs a plain closure on one of the threads (no task): for callback-style users.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        workers.submit(work)
    }

    /// Runs synchronous blocking `work` (a file write with its fsyncs, a SQLite step) on this executor and
    /// suspends the calling task, without holding its thread, until it is done.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            workers.submit { continuation.resume(with: Result { try work() }) }
        }
    }

    /// ``run(_:)`` for work that cannot fail.
    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            workers.submit { continuation.resume(returning: work()) }
        }
    }

    /// `runBlocking` gave up waiting; the work was cancelled.
    public struct TimedOut: Error, Equatable {
        public init() {}
    }

    /// Runs `work` on this executor and blocks the calling thread until it finishes, or until `timeout`
    /// seconds have passed: then the work is cancelled and ``TimedOut`` thrown. Never call it from this
    /// executor's own jobs (with `threads: 1` that waits for itself) or from the cooperative pool.
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

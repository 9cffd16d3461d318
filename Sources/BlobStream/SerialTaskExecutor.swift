import Dispatch
import Synchronization

/// Runs tasks' jobs on a private serial dispatch queue instead of Swift's shared concurrency pool.
///
/// Blocking APIs (`InputStream.open`/`read`, ``BlobSource/read(into:at:)``) that wait for async work must not
/// depend on the shared pool: it has one thread per core, and its threads may be the very ones blocked. One
/// real case: URLSession on Linux opens body streams on its own work queue while pool threads wait in
/// `dataTask(with:)` for that queue; an open that needed a pool thread would deadlock the process.
final class SerialTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `work` on this executor and blocks the calling thread until it finishes.
    func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, any Error>?>(nil)
        Task(executorPreference: self) {
            let result: Result<T, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { throw CancellationError() }
        return try result.get()
    }
}

import Dispatch

/// Runs the loader's tasks on a queue of its own instead of Swift's shared cooperative pool.
///
/// The pool has as many threads as cores; code elsewhere in the process that blocks a few of them (a
/// synchronous wait, a blocking read) would otherwise stall every download and every player waiting on one.
/// A serial dispatch queue always gets a thread, and the loader's jobs are short (copy a chunk, write and
/// checksum a block), so one is enough.
final class LoaderExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

import Foundation
import Dispatch
import SkyliftSystem
import Synchronization
import Testing

@Suite struct BlockingExecutorTests {
    struct Refused: Error, Equatable {}

    @Test func runBlockingReturnsTheResultOrTheError() throws {
        let executor = BlockingExecutor(name: "test")
        #expect(try executor.runBlocking { 6 * 7 } == 42)
        #expect(throws: Refused()) { try executor.runBlocking { () async throws -> Int in throw Refused() } }
    }

    @Test func aWaitPastItsTimeoutCancelsTheWork() throws {
        let executor = BlockingExecutor(name: "test")
        let cancelled = DispatchSemaphore(value: 0)
        #expect(throws: BlockingExecutor.TimedOut()) {
            try executor.runBlocking(timeout: 0.05) { () async throws -> Int in
                // Sleeps until cancelled; the sleep throws CancellationError then.
                do { try await Task.sleep(for: .seconds(600)) } catch { cancelled.signal() }
                return 0
            }
        }
        #expect(cancelled.wait(timeout: .now() + 30) == .success)
    }

    @Test func waitForBridgesACallback() throws {
        let value = BlockingExecutor.waitFor { (done: @escaping @Sendable (Result<Int, any Error>) -> Void) in
            DispatchQueue.global().async { done(.success(7)) }
        }
        #expect(try value.get() == 7)
    }

    /// Jobs that block hold at most `threads` threads; the rest wait their turn and all run in the end.
    @Test func blockedJobsHoldAtMostTheThreadLimit() {
        let executor = BlockingExecutor(name: "test-bounded", threads: 3)
        let gate = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0), ended = DispatchSemaphore(value: 0)
        for _ in 0 ..< 10 {
            executor.execute {
                started.signal()
                gate.wait()
                ended.signal()
            }
        }
        for _ in 0 ..< 3 { started.wait() }
        #expect(executor.threadCount == 3)
        for _ in 0 ..< 10 { gate.signal() }
        // Every job runs, on no more than three threads.
        for _ in 0 ..< 10 { ended.wait() }
        #expect(executor.threadCount <= 3)
    }

    /// A one-thread executor is serial: jobs run one at a time, in the order they were queued.
    @Test func oneThreadRunsJobsInOrderOneAtATime() async throws {
        let executor = BlockingExecutor(name: "test-serial")
        let log = Mutex<[Int]>([]), running = Atomic<Int>(0), overlap = Atomic<Bool>(false)
        for i in 0 ..< 200 {
            executor.execute {
                if running.add(1, ordering: .relaxed).newValue > 1 { overlap.store(true, ordering: .relaxed) }
                log.withLock { $0.append(i) }
                running.subtract(1, ordering: .relaxed)
            }
        }
        let order = await executor.run { log.withLock { $0 } }
        #expect(order == Array(0 ..< 200))
        let overlapped = overlap.load(ordering: .relaxed)
        #expect(!overlapped)
    }

    /// The threads carry the executor's name (what `ps -L` and debuggers show), and tasks preferring the
    /// executor run on them.
    @Test func threadsCarryTheExecutorsName() async throws {
        let executor = BlockingExecutor(name: "skylift-named")
        let plain = try await executor.run { try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) }
        #expect(plain == "skylift-named\n")
        let inTask = try await Task(executorPreference: executor) {
            try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        }.value
        #expect(inTask == "skylift-named\n")
    }
}

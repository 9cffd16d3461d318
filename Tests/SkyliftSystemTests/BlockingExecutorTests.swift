import Dispatch
import SkyliftSystem
import Synchronization
import Testing

@Suite struct BlockingExecutorTests {
    struct Refused: Error, Equatable {}

    @Test func runBlockingReturnsTheResultOrTheError() throws {
        let executor = BlockingExecutor(label: "test")
        #expect(try executor.runBlocking { 6 * 7 } == 42)
        #expect(throws: Refused()) { try executor.runBlocking { () async throws -> Int in throw Refused() } }
    }

    @Test func aWaitPastItsTimeoutCancelsTheWork() throws {
        let executor = BlockingExecutor(label: "test")
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
}

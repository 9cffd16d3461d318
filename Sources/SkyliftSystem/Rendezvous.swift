import Dispatch
import Synchronization

/// One result handed from the thread (or task) that produces it to threads blocked waiting for it: set once,
/// then every wait returns it at once.
public final class Rendezvous<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    public init() {}

    /// Sets the result (the first one counts) and wakes whoever waits.
    public func fulfil(_ value: Result<T, any Error>) {
        let first = result.withLock { current -> Bool in
            guard current == nil else { return false }
            current = value
            return true
        }
        if first { done.signal() }
    }

    /// The result, or nil when `timeout` seconds passed first (nil: wait as long as it takes).
    public func wait(timeout: Double?) -> Result<T, any Error>? {
        if let known = result.withLock({ $0 }) { return known }
        if let timeout {
            guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        } else {
            done.wait()
        }
        // Passed on, so a later wait (or another waiter) returns too.
        done.signal()
        return result.withLock { $0 }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a plain pthread mutex, for state that many threads hit at once.
///
/// `Synchronization.Mutex` on Linux is a priority-inheritance futex: under contention each unlock hands the
/// lock to the next waiter inside the kernel, so every thread queues behind one that is not even running yet,
/// and waiters spin before they sleep. On two busy cores the proxy's warm-cache path (eight connections reading
/// one resource) spent a quarter of its time there and served fewer requests than with one connection. A
/// pthread mutex lets whichever thread runs take the lock. Same `withLock` shape as `Mutex`.
public final class ThreadMutex<Value>: @unchecked Sendable {
    // @unchecked: the value is reached only through `withLock`, between pthread_mutex_lock and unlock, and goes
    // in and out as `sending` (like Synchronization.Mutex), so no unprotected reference to it escapes.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let value = UnsafeMutablePointer<Value>.allocate(capacity: 1)

    public init(_ initial: sending Value) {
        pthread_mutex_init(mutex, nil)
        value.initialize(to: initial)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the value while holding the lock.
    public func withLock<R, E: Error>(_ body: (inout sending Value) throws(E) -> sending R) throws(E) -> sending R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}

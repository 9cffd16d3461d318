import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Waits for SIGINT or SIGTERM, so long-running commands can stop cleanly.
public enum ShutdownSignal {
    /// Suspends until SIGINT or SIGTERM arrives; returns the signal number.
    public static func wait() async -> Int32 {
        let once = ResumeOnce()
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { once.fire(number) }
            return source
        }
        let number = await withCheckedContinuation { continuation in
            once.arm(continuation)
            sources.forEach { $0.resume() }
        }
        sources.forEach { $0.cancel() }
        return number
    }
}

/// Hands the first signal to the waiting task; later ones are dropped.
private final class ResumeOnce: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Int32, Never>?, fired: Int32?)>((nil, nil))

    func arm(_ continuation: CheckedContinuation<Int32, Never>) {
        let early = state.withLock { s -> Int32? in
            if let fired = s.fired { return fired }
            s.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func fire(_ number: Int32) {
        let waiting = state.withLock { s -> CheckedContinuation<Int32, Never>? in
            guard s.fired == nil else { return nil }
            s.fired = number
            defer { s.continuation = nil }
            return s.continuation
        }
        waiting?.resume(returning: number)
    }
}

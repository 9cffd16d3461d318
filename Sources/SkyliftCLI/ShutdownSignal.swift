import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Catches SIGINT and SIGTERM from the moment it is created, so long-running commands can stop cleanly.
///
/// Create it before announcing readiness: a signal that arrives between the announcement and ``wait()`` is
/// kept, not lost to the default action.
public final class ShutdownSignal: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Int32, Never>?, fired: Int32?)>((nil, nil))
    // The sources live as long as this object; they are created in init and only cancelled in deinit.
    private let sources: SignalSources

    public init() {
        let sources = SignalSources()
        self.sources = sources
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            sources.add(number) { [weak self] in self?.fire(number) }
        }
    }

    /// Suspends until SIGINT or SIGTERM has arrived; returns the signal number.
    public func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let early = state.withLock { s -> Int32? in
                if let fired = s.fired { return fired }
                s.continuation = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    private func fire(_ number: Int32) {
        let waiting = state.withLock { s -> CheckedContinuation<Int32, Never>? in
            guard s.fired == nil else { return nil }
            s.fired = number
            defer { s.continuation = nil }
            return s.continuation
        }
        waiting?.resume(returning: number)
    }
}

/// Owns the dispatch signal sources.
// @unchecked Sendable: `sources` is appended to only inside ShutdownSignal.init, before the object is shared
// with any other thread, and read again only in deinit.
private final class SignalSources: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []

    func add(_ number: Int32, handler: @escaping @Sendable () -> Void) {
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        sources.append(source)
    }

    deinit { sources.forEach { $0.cancel() } }
}

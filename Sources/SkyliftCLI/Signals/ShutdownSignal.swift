import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Catches SIGINT and SIGTERM, so long-running commands can stop cleanly.
///
/// A signal must be neither lost nor fatal while the command starts. ``catchSignals()`` installs a handler
/// synchronously, first thing in the process, and the handler only writes the signal's number into a pipe;
/// a ``ShutdownSignal`` reads that pipe whenever it is created, so a signal that came before it waits there.
/// Dispatch signal sources were not enough: libdispatch installs its handler later, on its own thread, and
/// until then a signal either killed the process half-way through start-up (default action) or, with
/// `SIG_IGN` set first, was discarded (Linux drops ignored signals, and a pending one when SIG_IGN is set),
/// leaving `serve` running. On Linux the main thread ends up in libdispatch's `sigsuspend` with every signal
/// unblocked, so blocking signals instead cannot work either.
///
/// Create it before announcing readiness: a signal that arrives between the announcement and ``wait()`` is
/// kept, not lost to the default action.
public final class ShutdownSignal: Sendable {
    /// The signals a long-running command stops on.
    static let numbers = [SIGINT, SIGTERM]

    private let state = Mutex<(continuation: CheckedContinuation<Int32, Never>?, fired: Int32?)>((nil, nil))
    // The read source lives as long as this object; it is created in init and only cancelled in deinit.
    private let reader: PipeReader

    public init() {
        let pipe = Self.catchSignals()
        let reader = PipeReader()
        self.reader = reader
        if let pipe { reader.start(pipe) { [weak self] number in self?.fire(number) } }
    }

    /// Installs the handler for SIGINT and SIGTERM (once per process; later calls return the same pipe).
    /// Called by the process first thing when the command it runs stops on a signal
    /// (``Command/stopsOnSignal``), and by ``init()`` in case nobody did. Nil if no pipe could be made; the
    /// signals then keep their default action.
    @discardableResult
    public static func catchSignals() -> Int32? { SignalPipe.shared.readEnd }

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

/// The pipe the handler writes each caught signal's number into, and the handler itself. Process-wide, unlike
/// everything else here, because signal dispositions are: one handler per signal per process, and a C handler
/// reaches nothing but globals.
final class SignalPipe: Sendable {
    static let shared = SignalPipe()
    /// Non-blocking, close-on-exec; nil when no pipe could be made (the handler is then not installed).
    let readEnd: Int32?

    private init() {
        guard let (readEnd, writeEnd) = makeSignalPipe() else {
            readEnd = nil
            return
        }
        signalPipeWriteEnd.store(writeEnd, ordering: .releasing)
        for number in ShutdownSignal.numbers { installSignalHandler(number, signalPipeHandler) }
        self.readEnd = readEnd
    }
}

/// A pipe for the signal handler: both ends close-on-exec and non-blocking (the handler must never wait, and
/// the reader drains it to empty).
func makeSignalPipe() -> (read: Int32, write: Int32)? {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return nil }
    for fd in fds {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }
    return (fds[0], fds[1])
}

/// Installs `handler` for `number`, restarting interrupted system calls.
func installSignalHandler(_ number: Int32, _ handler: @escaping @convention(c) (Int32) -> Void) {
    var action = sigaction()
    action.setHandler(handler)
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART
    sigaction(number, &action, nil)
}

/// Where the handler writes; set once, before the handler is installed.
let signalPipeWriteEnd = Atomic<Int32>(-1)

/// Async-signal-safe: one `write` of one byte (dropped if the pipe is full: the first signal is what counts).
let signalPipeHandler: @convention(c) (Int32) -> Void = { number in
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriteEnd.load(ordering: .acquiring), &byte, 1)
    errno = saved
}

/// Owns the dispatch read source on the signal pipe.
// @unchecked Sendable: `source` is set only inside ShutdownSignal.init, before the object is shared with any
// other thread, and read again only in deinit.
private final class PipeReader: @unchecked Sendable {
    private var source: (any DispatchSourceRead)?

    func start(_ fd: Int32, handler: @escaping @Sendable (Int32) -> Void) {
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: .global())
        source.setEventHandler {
            var byte: UInt8 = 0
            while read(fd, &byte, 1) == 1 { handler(Int32(byte)) }
        }
        source.resume()
        self.source = source
    }

    deinit { source?.cancel() }
}

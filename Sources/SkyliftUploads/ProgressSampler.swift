import Foundation
import SkyliftCore
import Synchronization

/// Emits `.progress` at a fixed interval while a transfer runs: position = confirmed base + bytes streamed
/// since (below the total: only the engine's confirmation reaches it), rate smoothed over the recent past. Sampling (not per-read events) keeps events at most 4 a second.
final class ProgressSampler: Sendable {
    private let offset = SentCounter()
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// Offset the streamed count adds to (moves on resume and after a rewind).
    var base: Int64 {
        get { offset.total }
        set { offset.set(newValue) }
    }

    /// Takes back bytes that were streamed but not stored (a failed attempt of a part running beside others).
    func rewind(by bytes: Int64) { offset.add(-bytes) }

    init(counter: SentCounter, total: Int64, interval: Double, emit: @escaping @Sendable (UploadEvent) -> Void) {
        let t = Task { [offset] in
            var last: Int64? = nil
            var rate = 0.0
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
                if Task.isCancelled { break }
                // Streamed is not stored: the whole size is claimed only by the engine, once the server confirmed it.
                let position = min(max(0, total - 1), max(0, offset.total + counter.total))
                if let last {
                    let instant = Double(max(0, position - last)) / interval
                    rate = rate == 0 ? instant : rate * 0.7 + instant * 0.3
                }
                last = position
                emit(.progress(TransferProgress(completed: position, total: total, rate: rate)))
            }
        }
        task.withLock { $0 = t }
    }

    func stop() {
        task.withLock { $0?.cancel() }
    }
}

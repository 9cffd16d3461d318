import Dispatch
import Synchronization

/// One thumbnail being made, and every request waiting for it: the first request starts the work, later
/// ones for the same entry wait here instead of making it again.
final class Flight: Sendable {
    private let result = Mutex<Result<Thumbnail, ThumbnailError>?>(nil)
    private let done = DispatchGroup()

    init() { done.enter() }

    func finish(_ value: Result<Thumbnail, ThumbnailError>) {
        result.withLock { $0 = value }
        done.leave()
    }

    /// Blocks the calling thread until the work is finished.
    func wait() -> Result<Thumbnail, ThumbnailError> {
        done.wait()
        return result.withLock { $0 } ?? .failure(.undecodable(reason: "no result"))
    }
}

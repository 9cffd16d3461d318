import Foundation

/// A running upload: its events as an `AsyncSequence`, its result, and cancellation.
///
/// Events are buffered without bound in count but not in size: progress is sampled at most four times a
/// second, so a consumer that never reads holds a few events per second of upload.
public final class UploadHandle: Sendable {
    /// Every event of this upload, ending after `done`, `skipped` or `failed`.
    public let events: AsyncStream<UploadEvent>
    private let task: Task<UploadResult, any Error>

    /// Runs `body` in a new task, delivering what it emits to ``events``.
    public init(_ body: @escaping @Sendable (@escaping @Sendable (UploadEvent) -> Void) async throws -> UploadResult) {
        let (stream, continuation) = AsyncStream<UploadEvent>.makeStream()
        self.events = stream
        self.task = Task {
            do {
                let result = try await body { continuation.yield($0) }
                continuation.finish()
                return result
            } catch let e as UploadError {
                continuation.yield(.failed(e))
                continuation.finish()
                throw e
            } catch {
                continuation.finish()
                throw error
            }
        }
    }

    /// Waits for the upload; throws ``UploadError`` when it failed or was cancelled.
    public func result() async throws -> UploadResult {
        try await task.value
    }

    /// Stops the upload; its resume state stays, so running it again continues where it was.
    public func cancel() { task.cancel() }
}

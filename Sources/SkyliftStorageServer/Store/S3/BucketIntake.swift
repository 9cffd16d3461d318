import Foundation
import SkyliftCore
import SkyliftHTTPServer
import SkyliftSystem

/// A request body handed to a job against the bucket (a PUT's write, a tus PATCH's append): the chunks go from the
/// event loop through a ``BodyChannel`` to the job, which runs on the backend's executor. When the bucket is slower
/// than the client, the channel fills and the connection pauses, so a body holds at most the channel and what the
/// job keeps (one part) in memory. The answer is made from the job's outcome once it has ended.
final class BucketIntake<Value: Sendable>: HTTPPacedBodyReceiver {
    private let channel = BodyChannel(limit: 128 << 10)
    /// The job's outcome, set once when it ends.
    private let outcome = Rendezvous<Value>()
    private let maxSize: Int64
    private let respond: (Result<Value, any Error>) -> HTTPResponse
    private var received: Int64 = 0
    /// The event loop hands a body over in reads of the connection's buffer (tens of KiB); they are gathered into
    /// pieces of ``pieceSize`` before they cross to the job, so the job (and the sender behind it) wakes once per
    /// piece, not once per read. Below glibc's 128 KiB mmap threshold, so a piece comes from the heap.
    private var piece: [UInt8] = []
    static var pieceSize: Int { 96 << 10 }

    /// Bodies larger than allowed, or cut short, end the job's body with this error.
    struct Abandoned: Error {}

    /// Starts `job` on the body at once; `maxSize` bytes at most are passed on (past them the answer is 413 and
    /// the body ends in ``Abandoned``); `respond` makes the answer from the job's outcome.
    init(executor: BlockingExecutor, maxSize: Int64, job: @escaping @Sendable (BodyChannel.Chunks) async throws -> Value,
         respond: @escaping (Result<Value, any Error>) -> HTTPResponse) {
        self.maxSize = maxSize
        self.respond = respond
        let channel = channel, outcome = outcome
        Task(executorPreference: executor) {
            do { outcome.fulfil(.success(try await job(channel.chunks))) } catch { outcome.fulfil(.failure(error)) }
            // Ended before the body did (the bucket refused, or the job failed): the connection must not stay
            // paused for a consumer that is gone; the next chunk gets the answer.
            channel.abandon()
        }
    }

    func receive(_ chunk: UnsafeRawBufferPointer, wake: HTTPWake) -> HTTPReceiveResult {
        received += Int64(chunk.count)
        if received > maxSize {
            channel.fail(Abandoned())
            return .answer(.text(413, "body larger than \(maxSize) bytes"))
        }
        if channel.isAbandoned { return .answer(answer()) }
        if piece.isEmpty { piece.reserveCapacity(Self.pieceSize) }
        piece.append(contentsOf: chunk)
        guard piece.count >= Self.pieceSize else { return .more }
        defer { piece = [] }
        return channel.push(piece, wake: wake) ? .more : .paused
    }

    func finish() -> HTTPResponse {
        // The last piece goes whatever the channel holds: nothing is left to pause for.
        if !piece.isEmpty { _ = channel.push(piece, wake: HTTPWake {}) }
        piece = []
        channel.finish()
        return answer()
    }

    /// The answer, made once the job has ended (waits for it; on the event loop it has ended already).
    private func answer() -> HTTPResponse { respond(outcome.wait(timeout: nil) ?? .failure(Abandoned())) }

    func abort() {
        channel.fail(Abandoned())
    }
}

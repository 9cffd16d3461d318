import Foundation
import SkyliftCore
import SkyliftHTTPServer
import Synchronization

/// A PUT body stored as a file of the bucket: the chunks go from the event loop through a ``BodyChannel`` to
/// `S3Store.write`, which sends them in parts and replaces the file only once every byte is in (and matches the
/// client's `Content-Digest`). When the bucket is slower than the client, the channel fills and the connection
/// pauses, so a PUT holds at most the channel and one part in memory.
final class BucketWriter: HTTPPacedBodyReceiver {
    private let channel = BodyChannel(limit: 1 << 20)
    /// The write's outcome, set once when it ends.
    private let outcome = Outcome()
    private let path: StoragePath
    private let existed: Bool
    private let maxSize: Int64
    private var received: Int64 = 0

    /// Bodies larger than the store may take, or cut short, end as this: the write then stores nothing.
    struct Abandoned: Error {}

    init(backend: BucketBackend, path: StoragePath, existed: Bool, maxSize: Int64, expectedSHA256: [UInt8]?) {
        self.path = path
        self.existed = existed
        self.maxSize = maxSize
        let store = backend.store, key = BucketBackend.key(path), channel = channel, outcome = outcome
        Task(executorPreference: backend.executor) {
            do { outcome.fulfil(.success(try await store.write(key, body: channel.chunks, expectedSHA256: expectedSHA256))) } catch {
                outcome.fulfil(.failure(error))
            }
            // Ended before the body did (the bucket refused, or the write failed): the connection must not stay
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
        return channel.push(Array(chunk), wake: wake) ? .more : .paused
    }

    func finish() -> HTTPResponse {
        channel.finish()
        return answer()
    }

    /// The answer to the PUT, once the write has ended (waits for it; on the event loop it has ended already).
    private func answer() -> HTTPResponse {
        switch outcome.wait() {
        case let .success(entry):
            var headers = HTTPHeaders()
            if let etag = entry.info.etag { headers.add("ETag", etag) }
            return existed ? HTTPResponse(status: 204, headers: headers) : .text(201, "created", headers: headers)
        case let .failure(error as S3StoreError):
            if case .digestMismatch = error.reason {
                return .text(400, "body does not match its Content-Digest", headers: [ServerDigest.mismatchHeader: "sha-256=10"])
            }
            return .text(502, "cannot store \(path.relative) in the bucket: \(error)")
        case let .failure(error):
            return .text(502, "cannot store \(path.relative) in the bucket: \(error)")
        }
    }

    func abort() {
        channel.fail(Abandoned())
    }
}

/// The outcome of a write, handed from its task to whoever answers the PUT.
private final class Outcome: Sendable {
    private let value = Mutex<Result<S3StoreEntry, any Error>?>(nil)
    private let ended = DispatchSemaphore(value: 0)

    func fulfil(_ result: Result<S3StoreEntry, any Error>) {
        value.withLock { $0 = result }
        ended.signal()
    }

    /// The outcome, waiting for the write to end first.
    func wait() -> Result<S3StoreEntry, any Error> {
        if let result = value.withLock({ $0 }) { return result }
        ended.wait()
        ended.signal()
        return value.withLock { $0 } ?? .failure(BucketWriter.Abandoned())
    }
}

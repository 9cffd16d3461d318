import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore

// Read-only calls with retries, and the checks after the last byte: size, digest, the completed record.
extension Job {
    /// Runs a read-only call, retrying transient failures.
    func withRetries<T>(_ call: () async throws -> T) async throws -> T {
        var tries = 0
        while true {
            do {
                return try await call()
            } catch let e as RemoteError {
                tries += 1
                guard e.disposition != .fatal, e.disposition != .outOfSpace, options.retry.allowsAnother(after: tries) else {
                    throw tries > 1 ? UploadError.retriesExhausted(source: source.name, attempts: tries, last: e)
                                    : UploadError.remote(source: source.name, e)
                }
                let delay = options.retry.delay(beforeRetry: tries)
                emit(.retried(attempt: tries, delay: delay, reason: e.description))
                try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            }
        }
    }

    /// Removes the partial upload and the record (the source changed, so neither can be continued). When the server
    /// would not remove it, the record stays (so `--cancel` can still find it) and what is left is returned.
    func discard(_ write: (any RemoteWrite)?) async -> (bytes: Int64?, reason: String)? {
        if let write, let error = await uploader.remove(write) {
            return (await keptOnServer(write), "\(error)")
        }
        await store.remove(source: source.name, destination: destination)
        return nil
    }

    /// Whether an upload the server no longer knows finished after all: the destination has the source's size
    /// and serves the SHA-256 of the source (computed here: one read of the source instead of sending it again).
    /// A destination that serves no digest cannot tell, so the upload starts over.
    func finishedEarlier() async throws -> Bool {
        guard let object = try await withRetries({ try await remote.stat(name) }) else { return false }
        return try await servesSourceDigest(object) == true
    }

    /// For a file of the source's size that serves a SHA-256, whether it is the source's (one read of the
    /// source); nil for a folder, another size, or no served digest.
    func servesSourceDigest(_ object: RemoteObject) async throws -> Bool? {
        guard !object.isFolder, object.info.length == source.length, let served = object.sha256 else { return nil }
        return try await source.digest(of: ByteRange(offset: 0, length: source.length), .sha256) == served
    }

    /// Confirms the size with the server, verifies when asked (unless `verified`: the served digest was already
    /// compared with the source), and records completion.
    mutating func confirm(length: Int64, verified alreadyVerified: Bool = false) async throws -> UploadResult {
        let object = try await withRetries { try await remote.stat(name) }
        if let object, object.info.length != length {
            throw UploadError.sizeMismatch(source: source.name, url: destination, expected: length, found: object.info.length)
        }
        if object == nil && remote.capabilities.readable {
            throw UploadError.sizeMismatch(source: source.name, url: destination, expected: length, found: nil)
        }
        var verified = alreadyVerified
        if !verified, options.verify || (options.checkServedDigest && object?.sha256 != nil) {
            try await verify(object)
            verified = true
        }
        var done = record(token: nil, offset: length)
        done.completed = true
        done.etag = object?.info.etag
        try await store.save(done)
        let result = UploadResult(source: source.name, destination: destination, length: length, bytesSent: sent.total,
                                  resumedFrom: resumedFrom, skipped: false, verified: verified, etag: object?.info.etag)
        emit(.progress(TransferProgress(completed: length, total: length, rate: 0)))
        emit(.done(result))
        return result
    }
}

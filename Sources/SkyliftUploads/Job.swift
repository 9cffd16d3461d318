import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore

/// One upload's mutable state, owned by the task running it.
struct Job {
    let uploader: Uploader
    let source: any UploadSource
    let name: String
    let destination: String
    let emit: @Sendable (UploadEvent) -> Void

    var remote: any Remote { uploader.remote }
    var store: any ResumeStore { uploader.store }
    var options: UploadOptions { uploader.options }
    var protocolName: String { remote.kind.rawValue }

    var attempts = 0
    /// Fresh starts after the server lost the upload; bounded so a server that always forgets cannot loop us.
    var restarts = 0
    var resumedFrom: Int64 = 0
    /// Waits for space after 507s so far, and the seconds they took (bounded by `RetryPolicy.spaceWait`).
    var spaceWaits = 0
    var spaceWaited: Double = 0
    let sent = SentCounter()

    init(uploader: Uploader, source: any UploadSource, name: String, destination: String, emit: @escaping @Sendable (UploadEvent) -> Void) {
        self.uploader = uploader
        self.source = source
        self.name = name
        self.destination = destination
        self.emit = emit
    }

    mutating func run() async throws -> UploadResult {
        let length = source.length
        emit(.started(source: source.name, destination: destination, length: length, protocolName: protocolName))
        let record = await store.load(source: source.name, destination: destination)
        // This source's own unfinished upload comes first: continued, or found finished after all.
        var write: (any RemoteWrite)?
        switch try await reattach(record) {
        case let .write(w): write = w
        case .finishedEarlier: return try await confirm(length: length, verified: true)
        case .fresh:
            if !options.force, let reason = try await alreadyThere(record) {
                emit(.skipped(reason: reason))
                return UploadResult(source: source.name, destination: destination, length: length, bytesSent: 0,
                                    resumedFrom: 0, skipped: true, verified: false, etag: record?.etag)
            }
        }
        let progress = ProgressSampler(counter: sent, total: length, interval: options.progressInterval, emit: emit)
        defer { progress.stop() }
        while true {
            do {
                try Task.checkCancellation()
                if write == nil { write = try await create() }
                guard let w = write else { continue }
                // Every write, created or reattached, gets the source: block-checking writes re-send from it in finish().
                w.attach(reader: reader)
                if let parted = w as? any PartedWrite {
                    try await sendParts(parted, progress: progress)
                } else {
                    try await sendAll(w, progress: progress)
                }
                try await source.checkUnchanged()
                try await w.finish()
                break
            } catch let e as RemoteError {
                // The server forgot a write that may have completed (a lost answer to its last request, such as
                // a tus final upload's creation): the destination holding the source means it did.
                if e.disposition == .restart, write != nil, try await finishedEarlier() {
                    return try await confirm(length: length, verified: true)
                }
                try await recover(from: e, write: &write, progress: progress)
            } catch let e as UploadError {
                if case .sourceChanged = e, let kept = await discard(write) {
                    throw UploadError.sourceChangedUploadKept(path: source.name, kept: kept.bytes, reason: kept.reason)
                }
                throw e
            } catch is CancellationError {
                if let w = write, !w.isResumable { try? await w.abort() }
                throw UploadError.cancelled(source: source.name)
            }
        }
        progress.stop()
        return try await confirm(length: length)
    }

    /// Skip-if-present: same size, and the same digest, or the ETag this source left there last time.
    func alreadyThere(_ record: ResumeRecord?) async throws -> String? {
        guard let existing = try await withRetries({ try await remote.stat(name) }) else { return nil }
        guard !existing.isFolder, existing.info.length == source.length else { return nil }
        if let same = try await servesSourceDigest(existing) { return same ? "destination holds the same SHA-256" : nil }
        if let record, record.completed, record.identity == source.identity, let etag = record.etag {
            return existing.info.etag == etag ? "destination holds this source's upload (same size and ETag)" : nil
        }
        return existing.info.etag == nil ? "destination holds the same size and offers no ETag or digest" : nil
    }

    /// What became of the earlier attempt recorded for this source.
    enum Reattached {
        /// Nothing to continue: no record, a changed source, or the server lost the upload.
        case fresh
        /// The server still holds the upload; continue it.
        case write(any RemoteWrite)
        /// The server finished the upload (the process died before it recorded so): nothing left to send.
        case finishedEarlier
    }

    /// The earlier attempt's write, when the source is unchanged and the server still has it; when the server
    /// no longer knows the upload but the destination holds this source (``finishedEarlier()``), nothing is left.
    mutating func reattach(_ record: ResumeRecord?) async throws -> Reattached {
        guard let record, !record.completed, let token = record.token else { return .fresh }
        if record.identity != source.identity {
            var reason = "source changed since the last attempt; starting over"
            if let old = try? await remote.resumeWrite(name, length: record.length, token: token), let error = await uploader.remove(old) {
                reason += " (the earlier partial upload could not be removed and stays on the server until it expires: \(error))"
            }
            emit(.restarted(reason: reason))
            await store.remove(source: source.name, destination: destination)
            return .fresh
        }
        if let write = try await withRetries({ try await remote.resumeWrite(name, length: source.length, token: token) }) {
            return .write(write)
        }
        if try await finishedEarlier() {
            resumedFrom = source.length
            emit(.resumed(from: source.length))
            return .finishedEarlier
        }
        emit(.restarted(reason: "the server no longer holds the earlier upload; starting over"))
        await store.remove(source: source.name, destination: destination)
        return .fresh
    }

    /// Creates the remote write and records it before any byte of the body is sent.
    mutating func create() async throws -> any RemoteWrite {
        let w = try await remote.startWrite(name, length: source.length)
        try await store.save(record(token: w.token, offset: 0))
        return w
    }

    /// Decides what a failed remote call means: back off and continue, start over, or give up.
    mutating func recover(from error: RemoteError, write: inout (any RemoteWrite)?, progress: ProgressSampler) async throws {
        switch error.disposition {
        case .outOfSpace:
            try await waitForSpace(write: write, progress: progress)
            return
        case .fatal:
            if let w = write, !w.isResumable { try? await w.abort() }
            throw UploadError.remote(source: source.name, error)
        case .restart:
            restarts += 1
            guard restarts <= 3 else { throw UploadError.remote(source: source.name, error) }
            emit(.restarted(reason: "the server no longer holds the upload; starting over"))
            await store.remove(source: source.name, destination: destination)
            write = nil
        case .retry, .refetchOffset, .resendPart:
            // Without an upload yet, a conflict is the server refusing creation: not transient.
            if write == nil, error.disposition != .retry, case .status = error {
                throw UploadError.remote(source: source.name, error)
            }
        }
        attempts += 1
        guard options.retry.allowsAnother(after: attempts) else {
            if let w = write, !w.isResumable { try? await w.abort() }
            throw UploadError.retriesExhausted(source: source.name, attempts: attempts, last: error)
        }
        let delay = options.retry.delay(beforeRetry: attempts)
        emit(.retried(attempt: attempts, delay: delay, reason: error.description))
        try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
    }

    func record(token: String?, offset: Int64) -> ResumeRecord {
        ResumeRecord(source: source.name, identity: source.identity, destination: destination, protocolName: protocolName,
                     token: token, length: source.length, confirmedOffset: offset)
    }
}

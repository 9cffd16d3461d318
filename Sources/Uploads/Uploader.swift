import Foundation
import Hashing
import HTTPClient
import Remotes
import SkyliftCore

/// The resumable upload engine: one source to one name in a remote, through the steps
/// skip-check → reattach or create → (digest part → send part)* → finish → confirm size → verify.
///
/// Resume state is written before the first byte goes out and after every confirmed part; the server's
/// offset always wins over the record, so a run after kill -9 re-sends at most one unconfirmed part.
public struct Uploader: Sendable {
    public let remote: any Remote
    public let store: ResumeStore
    public let options: UploadOptions

    public init(remote: any Remote, store: ResumeStore, options: UploadOptions = UploadOptions()) {
        self.remote = remote
        self.store = store
        self.options = options
    }

    /// Starts uploading `source` to `name` (a relative path in the remote's folder) and returns its handle.
    public func start(_ source: any UploadSource, as name: String) -> UploadHandle {
        UploadHandle { emit in try await self.run(source, as: name, emit: emit) }
    }

    /// Runs the upload to completion, reporting through `emit`.
    public func run(_ source: any UploadSource, as name: String, emit: @escaping @Sendable (UploadEvent) -> Void) async throws -> UploadResult {
        let destination = RemotePath.url(name, in: remote.folderURL).absoluteString
        var job = Job(uploader: self, source: source, name: name, destination: destination, emit: emit)
        return try await job.run()
    }
}

/// One upload's mutable state, owned by the task running it.
struct Job {
    let uploader: Uploader
    let source: any UploadSource
    let name: String
    let destination: String
    let emit: @Sendable (UploadEvent) -> Void

    var remote: any Remote { uploader.remote }
    var store: ResumeStore { uploader.store }
    var options: UploadOptions { uploader.options }
    var protocolName: String { remote is S3Remote ? "s3" : remote.capabilities.resumable ? "tus" : "webdav" }

    var attempts = 0
    /// Fresh starts after the server lost the upload; bounded so a server that always forgets cannot loop us.
    var restarts = 0
    var resumedFrom: Int64 = 0
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
        let record = store.load(source: source.name, destination: destination)
        if !options.force, let reason = try await alreadyThere(record) {
            emit(.skipped(reason: reason))
            return UploadResult(source: source.name, destination: destination, length: length, bytesSent: 0,
                                resumedFrom: 0, skipped: true, verified: false, etag: record?.etag)
        }
        var write = try await reattach(record)
        let progress = ProgressSampler(counter: sent, total: length, interval: options.progressInterval, emit: emit)
        defer { progress.stop() }
        while true {
            do {
                try Task.checkCancellation()
                if write == nil { write = try await create() }
                guard let w = write else { continue }
                w.attach(reader: reader)
                try await sendAll(w, progress: progress)
                try await source.checkUnchanged()
                try await w.finish()
                break
            } catch let e as RemoteError {
                try await recover(from: e, write: &write)
            } catch let e as UploadError {
                if case .sourceChanged = e { await discard(write) }
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
        if let digest = existing.sha256 {
            return try await source.digest(of: ByteRange(offset: 0, length: source.length), .sha256) == digest
                ? "destination holds the same SHA-256" : nil
        }
        if let record, record.completed, record.identity == source.identity, let etag = record.etag {
            return existing.info.etag == etag ? "destination holds this source's upload (same size and ETag)" : nil
        }
        return existing.info.etag == nil ? "destination holds the same size and offers no ETag or digest" : nil
    }

    /// The earlier attempt's write, when the source is unchanged and the server still has it.
    mutating func reattach(_ record: ResumeRecord?) async throws -> (any RemoteWrite)? {
        guard let record, !record.completed, let token = record.token else { return nil }
        if record.identity != source.identity {
            emit(.restarted(reason: "source changed since the last attempt; starting over"))
            if let old = try? await remote.resumeWrite(name, length: record.length, token: token) { try? await old.abort() }
            store.remove(source: source.name, destination: destination)
            return nil
        }
        guard let write = try await withRetries({ try await remote.resumeWrite(name, length: source.length, token: token) }) else {
            emit(.restarted(reason: "the server no longer holds the earlier upload; starting over"))
            store.remove(source: source.name, destination: destination)
            return nil
        }
        return write
    }

    /// Creates the remote write and records it before any byte of the body is sent.
    mutating func create() async throws -> any RemoteWrite {
        let w = try await remote.startWrite(name, length: source.length)
        try store.save(record(token: w.token, offset: 0))
        return w
    }

    /// Sends parts from the server's offset until the server holds everything.
    mutating func sendAll(_ w: any RemoteWrite, progress: ProgressSampler) async throws {
        let length = source.length
        var offset = try await w.confirmedOffset()
        if offset > 0 && sent.total == 0 && resumedFrom == 0 {
            resumedFrom = offset
            emit(.resumed(from: offset))
        }
        progress.base = offset - sent.total
        guard offset >= 0, offset <= length else {
            throw RemoteError.protocolViolation(url: URL(string: w.token) ?? remote.folderURL, reason: "server offset \(offset) outside 0...\(length)")
        }
        if length == 0 && !w.isResumable || (length == 0 && offset == 0) {
            _ = try await w.send(part(offset: 0, length: 0, checksum: nil))
            return
        }
        // The next part's digest is computed while the current part is on the wire (read twice, held never).
        var ahead: (range: ByteRange, task: Task<[UInt8], any Error>)?
        defer { ahead?.task.cancel() }
        while offset < length {
            try Task.checkCancellation()
            try await source.checkUnchanged()
            let range = ByteRange(offset: offset, length: partLength(at: offset, w))
            var checksum: [UInt8]?
            if let alg = w.partChecksum {
                if let pending = ahead, pending.range == range {
                    checksum = try await pending.task.value
                } else {
                    ahead?.task.cancel()
                    checksum = try await source.digest(of: range, Self.algorithm(alg))
                }
                ahead = nil
                if range.end < length {
                    let nextRange = ByteRange(offset: range.end, length: partLength(at: range.end, w))
                    let source = self.source
                    ahead = (nextRange, Task { try await source.digest(of: nextRange, Self.algorithm(alg)) })
                }
            }
            try await source.checkUnchanged()
            progress.base = offset - sent.total
            let next = try await w.send(part(offset: offset, length: range.length, checksum: checksum))
            guard next > offset else { throw RemoteError.offsetConflict(url: URL(string: w.token) ?? remote.folderURL) }
            offset = next
            attempts = 0
            if w.isResumable { try store.save(record(token: w.token, offset: offset)) }
        }
    }

    func partLength(at offset: Int64, _ w: any RemoteWrite) -> Int64 {
        guard w.isResumable, !w.sendsToEnd else { return source.length - (w.isResumable ? offset : 0) }
        return min(source.length - offset, options.partLength, w.maxPartLength ?? .max)
    }

    static func algorithm(_ alg: PartChecksumAlgorithm) -> DigestAlgorithm { alg == .sha256 ? .sha256 : .sha1 }

    func part(offset: Int64, length: Int64, checksum: [UInt8]?) -> WritePart {
        let source = self.source, counter = sent
        return WritePart(offset: offset, length: length, checksum: checksum) {
            PartInputStream(base: try source.open(ByteRange(offset: offset, length: length)), limit: length, counter: counter)
        }
    }

    /// Decides what a failed remote call means: back off and continue, start over, or give up.
    mutating func recover(from error: RemoteError, write: inout (any RemoteWrite)?) async throws {
        switch error.disposition {
        case .fatal:
            if let w = write, !w.isResumable { try? await w.abort() }
            throw UploadError.remote(source: source.name, error)
        case .restart:
            restarts += 1
            guard restarts <= 3 else { throw UploadError.remote(source: source.name, error) }
            emit(.restarted(reason: "the server no longer holds the upload; starting over"))
            store.remove(source: source.name, destination: destination)
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

    /// Runs a read-only call, retrying transient failures.
    func withRetries<T>(_ call: () async throws -> T) async throws -> T {
        var tries = 0
        while true {
            do {
                return try await call()
            } catch let e as RemoteError {
                tries += 1
                guard e.disposition != .fatal, options.retry.allowsAnother(after: tries) else {
                    throw tries > 1 ? UploadError.retriesExhausted(source: source.name, attempts: tries, last: e)
                                    : UploadError.remote(source: source.name, e)
                }
                let delay = options.retry.delay(beforeRetry: tries)
                emit(.retried(attempt: tries, delay: delay, reason: e.description))
                try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            }
        }
    }

    /// Removes the partial upload and the record (the source changed, so neither can be continued).
    func discard(_ write: (any RemoteWrite)?) async {
        if let write { try? await write.abort() }
        store.remove(source: source.name, destination: destination)
    }

    /// Confirms the size with the server, verifies when asked, and records completion.
    mutating func confirm(length: Int64) async throws -> UploadResult {
        let object = try await withRetries { try await remote.stat(name) }
        if let object, object.info.length != length {
            throw UploadError.sizeMismatch(source: source.name, url: destination, expected: length, found: object.info.length)
        }
        if object == nil && remote.capabilities.readable {
            throw UploadError.sizeMismatch(source: source.name, url: destination, expected: length, found: nil)
        }
        var verified = false
        if options.verify {
            try await verify(object)
            verified = true
        }
        var done = record(token: nil, offset: length)
        done.completed = true
        done.etag = object?.info.etag
        try store.save(done)
        let result = UploadResult(source: source.name, destination: destination, length: length, bytesSent: sent.total,
                                  resumedFrom: resumedFrom, skipped: false, verified: verified, etag: object?.info.etag)
        emit(.progress(TransferProgress(completed: length, total: length, rate: 0)))
        emit(.done(result))
        return result
    }

    func record(token: String?, offset: Int64) -> ResumeRecord {
        ResumeRecord(source: source.name, identity: source.identity, destination: destination, protocolName: protocolName,
                     token: token, length: source.length, confirmedOffset: offset)
    }
}

import Foundation
import SkyliftHashing
import SkyliftRemotes
import SkyliftCore

// Parts in any order, several at once, for remotes that take them so (S3 multipart, tus concatenation).
extension Job {
    /// Sends every part the service lacks, `options.parts` at a time. Each part is digested from the source, then
    /// streamed from it (read twice, held never), and retried on its own under the engine's policy; a lost upload
    /// or a fatal answer stops the others and goes to ``recover(from:write:)``.
    mutating func sendParts(_ w: any PartedWrite, progress: ProgressSampler) async throws {
        let length = source.length
        let stored = try await w.held(length: length)
        var held = stored.bytes
        if held > 0 && sent.total == 0 && resumedFrom == 0 {
            resumedFrom = held
            emit(.resumed(from: held))
        }
        progress.base = held - sent.total
        let sender = PartSender(write: w, source: source, length: length, counter: sent, progress: progress,
                                retry: options.retry, emit: emit)
        try await withThrowingTaskGroup(of: Int64.self) { group in
            var next = stored.missing.makeIterator()
            func launch() -> Bool {
                guard let number = next.next() else { return false }
                group.addTask { try await sender.send(number) }
                return true
            }
            for _ in 0..<options.parts where !launch() { break }
            while let done = try await group.next() {
                held += done
                // Informational: the service's part list is what a resumed run trusts.
                try await store.save(record(token: w.token, offset: held))
                _ = launch()
            }
        }
    }
}

/// Sends one part of a ``PartedWrite`` with its own retries; what each concurrent part task needs, shared.
struct PartSender: Sendable {
    let write: any PartedWrite
    let source: any UploadSource
    let length: Int64
    let counter: SentCounter
    let progress: ProgressSampler
    let retry: RetryPolicy
    let emit: @Sendable (UploadEvent) -> Void

    /// Sends part `number` until the service stores it; returns the bytes it added to what the service held of
    /// it (the part's length, unless the write continues parts from the bytes the service holds).
    func send(_ number: Int) async throws -> Int64 {
        let slice = write.range(ofPart: number, length: length)
        var attempts = 0
        var heldAtStart: Int64?
        while true {
            try Task.checkCancellation()
            let streamed = SentCounter()
            do {
                // Every attempt continues from what the service holds now: a cut attempt may have left more.
                let held = write.continuesParts ? min(max(0, try await write.heldPrefix(ofPart: number)), slice.length) : 0
                if heldAtStart == nil { heldAtStart = held }
                let range = ByteRange(offset: slice.offset + held, length: slice.length - held)
                var checksum: [UInt8]?
                if let alg = write.partChecksum { checksum = try await source.digest(of: range, Job.algorithm(alg)) }
                let source = self.source, counter = self.counter
                let part = WritePart(offset: range.offset, length: range.length, checksum: checksum) {
                    PartInputStream(base: try source.open(range), limit: range.length, counter: counter, attempt: streamed)
                }
                try await write.send(part, number: number)
                return slice.length - (heldAtStart ?? 0)
            } catch let error as RemoteError {
                progress.rewind(by: streamed.total)
                guard ![.fatal, .restart, .outOfSpace].contains(error.disposition) else { throw error }
                attempts += 1
                guard retry.allowsAnother(after: attempts) else {
                    throw UploadError.retriesExhausted(source: source.name, attempts: attempts, last: error)
                }
                let delay = retry.delay(beforeRetry: attempts)
                emit(.retried(attempt: attempts, delay: delay, reason: "part \(number): \(error.description)"))
                try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            }
        }
    }
}

import Foundation
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore
import SkyliftSystem
import Synchronization

extension FileFetch {
    /// One read from `from` to the end, hashed as it arrives (after the partial prefix, hashed first).
    func fetchSequentially(_ file: PartialFile, from start: Int64, plan initial: Plan) async throws -> Fetched {
        var plan = initial
        let hasher = RunningDigest(plan.digests.algorithm)
        try hasher.hash(file.fd, to: start, path: file.partPath)
        var position = start, attempts = 0
        meter.onDisk(start)
        while plan.length.map({ position < $0 }) ?? true {
            let before = position
            do {
                let response = try await origin.read(entry, range: position > 0 ? ByteRange(offset: position, length: (plan.length ?? position) - position) : nil,
                                                     validator: position > 0 ? plan.validator : nil)
                let partial = response.status == 206
                let described = origin.describe(response, partial: partial)
                if partial {
                    try Self.expect(response, startsAt: position, validator: plan.validator, url: entry.url)
                    plan.digests = plan.digests.merged(described.digests)
                } else {
                    if position > 0 {
                        // 200 to a read with If-Range: the file is not the one the partial file holds.
                        emit(.restarted(reason: "the remote file changed since the partial download; starting over"))
                        try file.reset()
                        hasher.reset()
                        position = 0
                        meter.onDisk(0)
                    }
                    plan = adopt(response, described, plan)
                    try saveRecord(file, plan)
                }
                try await stream(response, into: file, at: &position, end: plan.length, hasher: hasher)
                if plan.length == nil { plan.length = position }
            } catch let change as Changed {
                throw change
            } catch {
                if position > before { attempts = 0 }
                try await retry(after: error, attempts: &attempts)
            }
        }
        return Fetched(length: position, digest: hasher.finalize(), algorithm: hasher.algorithm, plan: plan, resumedFrom: start)
    }

    /// The plan after a full (200) answer: its validator, and the listing's digests only while the validator
    /// is still the listed one (a changed file's listed digest describes the old bytes).
    private func adopt(_ response: HTTPClientResponse, _ described: (validator: String?, digests: ServedDigests), _ plan: Plan) -> Plan {
        var next = plan
        let same = described.validator.map { DownloadEntry.sameValidator($0, entry.validator) } ?? true
        next.validator = described.validator ?? plan.validator
        next.digests = same ? entry.digests.merged(described.digests) : described.digests
        next.length = response.headers.integer("Content-Length") ?? plan.length
        if !same { next.modified = response.headers["Last-Modified"].flatMap(HTTPDate.parse) ?? plan.modified }
        return next
    }

    /// Saves the resume record before the first byte, for files large enough to be worth resuming.
    private func saveRecord(_ file: PartialFile, _ plan: Plan) throws {
        guard let length = plan.length, length >= options.resumableSize, let validator = plan.validator else { return }
        try file.save(ResumeRecord(url: entry.url.absoluteString, validator: validator, length: length, ranges: nil))
    }

    /// Reads the unfinished ranges side by side, then hashes the whole file (ranges cannot be hashed in order
    /// as they arrive; the file is read back from the page cache).
    func fetchRanges(_ file: PartialFile, plan: Plan, ranges: [RangeProgress]) async throws -> Fetched {
        let done = ranges.reduce(Int64(0)) { $0 + $1.done }
        if done > 0 { emit(.resumed(from: done)) }
        meter.onDisk(done)
        guard let validator = plan.validator, let length = plan.length else { throw Changed(reason: "no validator to read ranges with") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, range) in ranges.enumerated() where range.start + range.done < range.end {
                group.addTask { try await fetchRange(index, range, into: file, validator: validator) }
            }
            try await group.waitForAll()
        }
        let hasher = RunningDigest(plan.digests.algorithm)
        try hasher.hash(file.fd, to: length, path: file.partPath)
        return Fetched(length: length, digest: hasher.finalize(), algorithm: hasher.algorithm, plan: plan, resumedFrom: done)
    }

    private func fetchRange(_ index: Int, _ range: RangeProgress, into file: PartialFile, validator: String) async throws {
        var position = range.start + range.done, attempts = 0
        var checkpointed = position
        while position < range.end {
            let before = position
            do {
                let response = try await origin.read(entry, range: ByteRange(offset: position, length: range.end - position), validator: validator)
                guard response.status == 206 else {
                    response.body.cancel()
                    // The whole file again: changed (another validator), or a server that does not serve ranges.
                    guard let now = response.validator, !DownloadEntry.sameValidator(now, validator) else {
                        throw Changed(reason: "the server answers ranges with the whole file; reading it in one stream", rangesIgnored: true)
                    }
                    throw Changed(reason: "the remote file changed while being read in ranges; starting over")
                }
                try Self.expect(response, startsAt: position, validator: validator, url: entry.url)
                try await stream(response, into: file, at: &position, end: range.end, hasher: nil) { reached in
                    guard reached - checkpointed >= options.checkpointBytes else { return }
                    try file.checkpoint(range: index, done: reached - range.start)
                    checkpointed = reached
                }
            } catch let change as Changed {
                throw change
            } catch {
                if position > before { attempts = 0 }
                try await retry(after: error, attempts: &attempts)
            }
        }
        try file.checkpoint(range: index, done: position - range.start)
    }

    /// Writes the body at `position` onwards, moving `position` past every byte written (also when the body
    /// fails midway, so a retry continues from there).
    func stream(_ response: HTTPClientResponse, into file: PartialFile, at position: inout Int64, end: Int64?,
                hasher: RunningDigest?, written: (Int64) throws -> Void = { _ in }) async throws {
        for try await chunk in response.body {
            if let end, position + Int64(chunk.count) > end {
                response.body.cancel()
                throw DownloadError.lengthMismatch(url: entry.url, expected: end, actual: position + Int64(chunk.count))
            }
            try file.write(chunk, at: position)
            hasher?.update(chunk)
            position += Int64(chunk.count)
            meter.add(chunk.count)
            try written(position)
            if let p = meter.progressDue(total: plan(end)) { emit(.progress(p)) }
        }
        if let end, position < end {
            throw RemoteError.network(url: entry.url, reason: "the answer ended at byte \(position) of \(end)")
        }
    }

    private func plan(_ end: Int64?) -> Int64? { entry.length ?? end }

    /// Checks a 206 answer: it starts where asked and still carries the validator the read is pinned to.
    static func expect(_ response: HTTPClientResponse, startsAt position: Int64, validator: String?, url: URL) throws {
        let range = response.headers["Content-Range"].flatMap(ContentRange.init)
        guard range?.first == position else {
            response.body.cancel()
            throw DownloadError.remote(.protocolViolation(url: url, reason: "asked for bytes from \(position), got Content-Range \(response.headers["Content-Range"] ?? "none")"))
        }
        if let validator, let now = response.validator, !DownloadEntry.sameValidator(now, validator) {
            response.body.cancel()
            throw Changed(reason: "the remote file changed since the partial download; starting over")
        }
    }

    /// Waits before another attempt after a transient failure (one `RetryPolicy` for every read), or throws:
    /// a 412 means the file changed (start over), anything else that is not transient is final.
    func retry(after error: any Error, attempts: inout Int) async throws {
        let failure = Self.failure(error, url: entry.url)
        if case let .remote(remote) = failure, remote.status == 412 {
            throw Changed(reason: "the remote file changed since the partial download; starting over")
        }
        if case let .remote(remote) = failure, let status = remote.status, [403, 404, 410].contains(status) {
            throw DownloadError.notServed(url: entry.url, status: status)
        }
        attempts += 1
        guard failure.isTransient, options.retry.allowsAnother(after: attempts) else { throw failure }
        let delay = options.retry.delay(beforeRetry: attempts)
        emit(.retried(attempt: attempts, delay: delay, reason: failure.description))
        try await Task.sleep(for: .seconds(delay))
    }
}

/// Bytes a fetch read and wrote, and when it last reported progress (at most four times a second).
final class FetchMeter: Sendable {
    private let state = Mutex((fetched: Int64(0), onDisk: Int64(0), lastReport: 0.0, lastBytes: Int64(0), rate: 0.0))

    var fetched: Int64 { state.withLock { $0.fetched } }

    func add(_ count: Int) { state.withLock { $0.fetched += Int64(count); $0.onDisk += Int64(count) } }

    /// The partial file holds `bytes` (a resume, or a restart from 0).
    func onDisk(_ bytes: Int64) { state.withLock { $0.onDisk = bytes } }

    func progressDue(total: Int64?) -> TransferProgress? {
        let now = Date().timeIntervalSince1970
        return state.withLock { s in
            guard now - s.lastReport >= 0.25 else { return nil }
            if s.lastReport > 0 {
                let instant = Double(s.fetched - s.lastBytes) / (now - s.lastReport)
                s.rate = s.rate == 0 ? instant : s.rate * 0.7 + instant * 0.3
            }
            (s.lastReport, s.lastBytes) = (now, s.fetched)
            return TransferProgress(completed: s.onDisk, total: total, rate: s.rate)
        }
    }
}

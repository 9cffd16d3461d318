import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore
import SkyliftSystem

/// Brings one remote file into place: skips it when the local copy already matches, continues a partial
/// file an earlier run left (hashing its prefix first), reads the rest (in parallel ranges for large files),
/// checks the served digest, reads the file once more on a mismatch, and commits it under its final name.
struct FileFetch: Sendable {
    let entry: DownloadEntry
    let origin: any DownloadOrigin
    let finalPath: String
    let options: DownloadOptions
    let emit: @Sendable (DownloadEvent) -> Void
    let meter = FetchMeter()

    /// What the remote's answers established about the file being read.
    struct Plan: Sendable {
        var validator: String?
        var digests: ServedDigests
        var length: Int64?
        var modified: Date?
    }

    /// The bytes of one complete read.
    struct Fetched {
        var length: Int64
        var digest: [UInt8]
        var algorithm: DigestAlgorithm
        var plan: Plan
        var resumedFrom: Int64
    }

    /// Control flow inside a fetch: the remote file changed under the read (or the server answers ranges with
    /// the whole file), so it starts over.
    struct Changed: Error {
        var reason: String
        /// The server sent the whole unchanged file to a ranged read: read it in one stream from now on.
        var rangesIgnored = false
    }

    func run() async throws(DownloadError) -> DownloadResult {
        do {
            return try await fetchAndCommit()
        } catch {
            throw Self.failure(error, url: entry.url)
        }
    }

    private func fetchAndCommit() async throws -> DownloadResult {
        if let reason = try localCopyMatches() {
            emit(.skipped(reason: reason))
            return DownloadResult(path: entry.path, length: entry.length ?? 0, fetched: 0, resumedFrom: 0, verified: nil, skipped: true)
        }
        emit(.started(length: entry.length))
        var mismatches = 0, changes = 0, sequential = false
        while true {
            let file = try PartialFile(finalPath: finalPath)
            do {
                let read = try await fetch(into: file, sequential: sequential)
                guard let expected = read.plan.digests.value(read.algorithm) else {
                    if options.verify { file.discard(); throw DownloadError.noDigest(url: entry.url) }
                    try file.commit(modified: read.plan.modified)
                    return result(read, verified: nil)
                }
                if expected == read.digest {
                    try file.commit(modified: read.plan.modified)
                    return result(read, verified: read.algorithm.label)
                }
                file.discard()
                let mismatch = DownloadError.digestMismatch(url: entry.url, algorithm: read.algorithm.label,
                                                            expected: expected.hexString, actual: read.digest.hexString)
                mismatches += 1
                guard mismatches < 2 else { throw mismatch }
                emit(.restarted(reason: "\(read.algorithm.label) mismatch (served \(expected.hexString), read \(read.digest.hexString)); fetching again"))
            } catch let change as Changed {
                file.discard()
                sequential = sequential || change.rangesIgnored
                changes += 1
                guard changes < 4 else { throw DownloadError.keepsChanging(url: entry.url) }
                emit(.restarted(reason: change.reason))
            } catch {
                // A local failure (no space, permission) leaves nothing behind, not even the hidden file; after
                // a remote one a partial file with a resume record stays for the next run to continue.
                if case .local = Self.failure(error, url: entry.url) { file.discard() } else if file.storedRecord() == nil {
                    file.discard()
                } else {
                    file.close()
                }
                throw error
            }
        }
    }

    private func result(_ read: Fetched, verified: String?) -> DownloadResult {
        DownloadResult(path: entry.path, length: read.length, fetched: meter.fetched, resumedFrom: read.resumedFrom, verified: verified)
    }

    /// Reads the file into `file`, continuing what a matching resume record describes; in ranges when asked
    /// for and the file is large enough, unless `sequential`.
    private func fetch(into file: PartialFile, sequential: Bool) async throws -> Fetched {
        let plan = Plan(validator: entry.validator, digests: entry.digests, length: entry.length, modified: entry.lastModified)
        if let record = file.storedRecord(), let validator = plan.validator, record.url == entry.url.absoluteString,
           record.validator == validator, record.length == plan.length, !sequential || record.ranges == nil {
            try file.save(record)
            if let ranges = record.ranges { return try await fetchRanges(file, plan: plan, ranges: ranges) }
            let from = min(try file.length(), record.length)
            if from > 0 { emit(.resumed(from: from)) }
            return try await fetchSequentially(file, from: from, plan: plan)
        }
        if file.storedRecord() != nil {
            emit(.restarted(reason: "the remote file changed since the partial download; starting over"))
        }
        try file.reset()
        if options.parts > 1, !sequential, let length = plan.length, length >= options.partThreshold, let validator = plan.validator {
            let ranges = Self.split(length, into: options.parts)
            try file.save(ResumeRecord(url: entry.url.absoluteString, validator: validator, length: length, ranges: ranges))
            return try await fetchRanges(file, plan: plan, ranges: ranges)
        }
        return try await fetchSequentially(file, from: 0, plan: plan)
    }

    /// `length` bytes as `count` contiguous ranges (the last takes the remainder).
    static func split(_ length: Int64, into count: Int) -> [RangeProgress] {
        let size = max(1, length / Int64(count))
        return (0..<count).compactMap { i in
            let start = Int64(i) * size
            let end = i == count - 1 ? length : start + size
            return start < end ? RangeProgress(start: start, end: end, done: 0) : nil
        }
    }

    /// Whether the local file already holds the remote's content: same size and digest, or same size and
    /// time where the remote serves no digest. Returns the reason, or nil to fetch.
    private func localCopyMatches() throws -> String? {
        guard let status = try? FileStatus(finalPath, followLinks: false) else { return nil }
        if status.isDirectory { throw DownloadError.inTheWay(path: finalPath, what: "a folder") }
        guard status.isRegular, let length = entry.length, status.size == length else { return nil }
        let served = entry.digests
        if let expected = served.value(served.algorithm) {
            let local = try RunningDigest.of(file: finalPath, length: length, algorithm: served.algorithm)
            return local == expected ? "same size and \(served.algorithm.label)" : nil
        }
        guard !options.verify, let modified = entry.lastModified,
              Int64(modified.timeIntervalSince1970.rounded(.down)) == status.modifiedSeconds else { return nil }
        return "same size and time"
    }

    /// The one-line error for anything a fetch threw.
    static func failure(_ error: any Error, url: URL) -> DownloadError {
        switch error {
        case let e as DownloadError: return e
        case let e as FileError: return .local(e)
        case let e as RemoteError: return .remote(e)
        case let e as HTTPClientError:
            if case .cancelled = e { return .cancelled(path: DownloadError.show(url)) }
            return .remote(.network(url: url, reason: e.description))
        case is CancellationError: return .cancelled(path: DownloadError.show(url))
        default: return .source("\(DownloadError.show(url)): \(error)")
        }
    }
}

import Foundation
import SkyliftHashing
import SkyliftRemotes
import SkyliftCore

// Parts one after another, each from the offset the server confirmed (tus, WebDAV, a single S3 PUT).
extension Job {
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
            if w.isResumable { try await store.save(record(token: w.token, offset: offset)) }
        }
    }

    func partLength(at offset: Int64, _ w: any RemoteWrite) -> Int64 {
        // A write that streams to the end (tus block-checksum) takes everything from the server's offset in one part.
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

}

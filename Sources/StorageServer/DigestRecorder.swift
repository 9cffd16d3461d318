import Hashing

/// Hashes bytes as they stream to disk, with every algorithm the server keeps, so the record of a written
/// file costs no second read. Owned by one request (one thread at a time).
///
/// `@unchecked Sendable` because a tus upload's running digest passes from one request to the next through
/// ``TusStreamedDigests`` (taken out under its lock, put back when the request is done, the upload's claim
/// keeping other requests away meanwhile): never updated by two threads at once.
final class DigestRecorder: @unchecked Sendable {
    /// One running digest; a class so a list of them can be updated in place (`Digest` cannot be copied).
    private final class Running {
        var digest: Digest
        init(_ algorithm: DigestAlgorithm) { digest = Digest(algorithm) }
    }

    private let running: [Running]

    /// SHA-256 always, plus the others in `algorithms`.
    init(_ algorithms: Set<DigestAlgorithm>) {
        running = [Running(.sha256)] + DigestAlgorithm.allCases.filter { $0 != .sha256 && algorithms.contains($0) }.map(Running.init)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        for r in running { r.digest.update(bytes) }
    }

    /// The record for the file the bytes went to, as `stat` describes it after the last write.
    /// The recorder must not be used afterwards.
    func finish(for stat: FileStat) -> DigestRecord {
        var found: [DigestAlgorithm: [UInt8]] = [:]
        for r in running {
            found[r.digest.algorithm] = r.digest.finalizeAndReset()
        }
        return DigestRecord(sha256: found[.sha256] ?? [], sha1: found[.sha1], md5: found[.md5], size: stat.size,
                            mtimeNanoseconds: stat.mtimeNanoseconds, inode: stat.inode)
    }
}

import SkyliftHashing

/// Hashes bytes as they stream to disk, with every algorithm the server keeps, so the record of a written
/// file costs no second read. Owned by one request (one thread at a time).
///
/// `@unchecked Sendable` because an upload's running digest (tus, or a resumable write to an ``S3Store``) passes
/// from one request to the next through ``StreamedDigests`` (taken out under its lock, put back when the request
/// is done, the upload's claim or its single writer keeping other requests away meanwhile): never updated by two
/// threads at once.
final class DigestRecorder: @unchecked Sendable {
    /// One running digest; a class so a list of them can be updated in place (`Digest` cannot be copied).
    private final class Running {
        var digest: Digest
        init(_ algorithm: DigestAlgorithm) { digest = Digest(algorithm) }
    }

    private let running: [Running]
    private var finished: [DigestAlgorithm: [UInt8]]?
    /// What a large body's hashing thread (``HashRing``) may take beyond its least buffers: the store's.
    let ringBudget: HashRingBudget?

    /// SHA-256 always, plus the others in `algorithms`.
    init(_ algorithms: Set<DigestAlgorithm>, ringBudget: HashRingBudget? = nil) {
        self.ringBudget = ringBudget
        running = [Running(.sha256)] + DigestAlgorithm.allCases.filter { $0 != .sha256 && algorithms.contains($0) }.map(Running.init)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        assert(finished == nil, "DigestRecorder updated after its digests were read")
        for r in running { r.digest.update(bytes) }
    }

    /// The digests of every byte seen. Once asked, the recorder takes no more bytes.
    func digests() -> [DigestAlgorithm: [UInt8]] {
        if let finished { return finished }
        var found: [DigestAlgorithm: [UInt8]] = [:]
        for r in running { found[r.digest.algorithm] = r.digest.finalizeAndReset() }
        finished = found
        return found
    }

    /// The SHA-256 of every byte seen: what a PUT's `Content-Digest` is checked against, so a body the client
    /// announced is hashed once, not once for the record and once for the check.
    var sha256: [UInt8] { digests()[.sha256] ?? [] }

    /// The record for the file the bytes went to, as `stat` describes it after the last write.
    func finish(for stat: FileStat) -> DigestRecord {
        let found = digests()
        return DigestRecord(sha256: found[.sha256] ?? [], sha1: found[.sha1], md5: found[.md5], size: stat.size,
                            mtime: stat.mtime, inode: stat.inode)
    }
}

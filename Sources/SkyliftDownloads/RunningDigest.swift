import SkyliftHashing
import SkyliftSystem

/// A digest fed as bytes arrive, in order; ``hash(_:from:to:path:)`` feeds it from a file (the partial
/// prefix of a resumed download, a finished file fetched in ranges, a local copy being compared).
final class RunningDigest {
    let algorithm: DigestAlgorithm
    private var digest: Digest

    init(_ algorithm: DigestAlgorithm) {
        self.algorithm = algorithm
        digest = Digest(algorithm)
    }

    func update(_ bytes: [UInt8]) { digest.update(bytes) }

    /// Starts over, as if nothing had been fed.
    func reset() { _ = digest.finalizeAndReset() }

    func finalize() -> [UInt8] { digest.finalizeAndReset() }

    /// Feeds bytes `start..<end` of the open file `fd`, 1 MiB at a time.
    func hash(_ fd: FileDescriptor, from start: Int64 = 0, to end: Int64, path: String) throws(FileError) {
        guard start < end else { return }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var position = start
        while position < end {
            let want = Int(min(Int64(buffer.count), end - position))
            let n = try buffer.withUnsafeMutableBytes { raw in
                Result { () throws(FileError) in try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<want]), at: position, path: path) }
            }.get()
            guard n > 0 else { throw FileError(path: path, reason: "ended at byte \(position) while \(end) were expected") }
            buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            position += Int64(n)
        }
    }

    /// The digest of the first `length` bytes of the file at `path` (opened without following a link).
    static func of(file path: String, length: Int64, algorithm: DigestAlgorithm) throws(FileError) -> [UInt8] {
        let fd = try FileDescriptor.open(path, .readOnly, options: .noFollow)
        defer { fd.close() }
        let running = RunningDigest(algorithm)
        try running.hash(fd, to: length, path: path)
        return running.finalize()
    }
}

extension DigestAlgorithm {
    /// The name in messages and `--json` events, as RFC 9530 spells it.
    var label: String {
        switch self {
        case .sha256: "sha-256"
        case .sha1: "sha"
        case .md5: "md5"
        }
    }
}

import Foundation
import SkyliftHashing

/// Digests of a source's content, computed in one streaming pass.
public enum BlobDigest {
    /// Reads `source` once, chunk by chunk, and returns the digest of its bytes (SHA-256 unless told).
    /// - Parameters:
    ///   - algorithm: the digest to compute.
    ///   - source: what to read; opened and closed here.
    ///   - offset: first byte digested.
    ///   - length: bytes digested at most; nil for all to the end.
    ///   - chunkSize: bytes per source read.
    public static func compute(_ algorithm: DigestAlgorithm = .sha256, of source: any BlobSource,
                               offset: Int64 = 0, length: Int64? = nil,
                               chunkSize: Int = BlobInputStream.defaultBlockSize) async throws -> [UInt8] {
        var digest = Digest(algorithm)
        for try await chunk in BlobChunks(source: source, offset: offset, length: length, chunkSize: chunkSize) {
            digest.update(chunk)
        }
        return digest.finalize()
    }
}

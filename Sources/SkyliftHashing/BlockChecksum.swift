import SkyliftCore

/// A running checksum of one block with a ``BlockChecksumAlgorithm``: CRC-32C, or SHA-256 through ``Digest``.
/// Owned by one thread at a time, like `Digest`.
public struct BlockChecksum: ~Copyable {
    public let algorithm: BlockChecksumAlgorithm
    private var crc = CRC32C()
    private var digest: Digest?

    public init(_ algorithm: BlockChecksumAlgorithm) {
        self.algorithm = algorithm
        digest = algorithm == .sha256 ? Digest(.sha256) : nil
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        switch algorithm {
        case .crc32c: crc.update(bytes)
        case .sha256: digest?.update(bytes)
        }
    }

    /// The checksum of everything fed so far (``BlockChecksumAlgorithm/byteCount`` bytes, CRC-32C big-endian),
    /// then starts over empty for the next block.
    public mutating func finalizeAndReset() -> [UInt8] {
        switch algorithm {
        case .crc32c:
            defer { crc = CRC32C() }
            return crc.bytes
        case .sha256:
            return digest?.finalizeAndReset() ?? []
        }
    }
}

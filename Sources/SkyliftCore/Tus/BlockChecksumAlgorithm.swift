/// Checksums that cover fixed-size blocks of an upload (tus `block-checksum`), in the client's order of
/// preference: CRC-32C catches damage on the wire at a few GB/s; SHA-256 is what older servers accept. The
/// whole file's SHA-256 is kept by the server apart from these (its digest record).
public enum BlockChecksumAlgorithm: String, Sendable, CaseIterable {
    case crc32c, sha256

    /// Size of one checksum in bytes.
    public var byteCount: Int {
        switch self {
        case .crc32c: 4
        case .sha256: 32
        }
    }

    /// Reads a name as sent in a header (case and surrounding spaces ignored); nil for any other.
    public init?(name: String) {
        self.init(rawValue: name.trimmingSpaces().lowercased())
    }
}

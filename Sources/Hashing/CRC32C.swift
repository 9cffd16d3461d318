import CCRC32C
import Foundation

/// CRC-32C (Castagnoli, RFC 3720): a 32-bit checksum of bytes, computed incrementally. Catches damage on the way
/// (any burst up to 32 bits, any odd number of flipped bits), not tampering; with the CPU's `crc32` instruction
/// it runs at several GB/s, so checking every block of an upload costs next to nothing beside sending it.
public struct CRC32C: Sendable, Hashable {
    /// The checksum of everything fed so far (0 for nothing).
    public private(set) var value: UInt32 = 0

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        value = skylift_crc32c(value, base, bytes.count)
    }

    public mutating func update<D: DataProtocol>(_ data: D) {
        for region in data.regions { region.withUnsafeBytes { update($0) } }
    }

    /// ``value`` as four big-endian bytes, the form checksums travel in (base64 of these on the wire).
    public var bytes: [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    /// One-shot checksum of in-memory bytes.
    public static func checksum<D: DataProtocol>(_ data: D) -> UInt32 {
        var c = CRC32C()
        c.update(data)
        return c.value
    }

    /// The table version, whatever the CPU offers: for tests that hold both versions to the same values.
    static func portable<D: DataProtocol>(_ data: D) -> UInt32 {
        var value: UInt32 = 0
        for region in data.regions {
            region.withUnsafeBytes { raw in
                if let base = raw.baseAddress, !raw.isEmpty { value = skylift_crc32c_portable(value, base, raw.count) }
            }
        }
        return value
    }

    /// Whether the CPU instruction is in use (SSE4.2 on x86-64); otherwise a table, ~10× slower.
    public static var usesHardware: Bool { skylift_crc32c_hardware() != 0 }
}

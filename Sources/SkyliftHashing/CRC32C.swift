import CCRC32C
import Foundation

/// CRC-32C (Castagnoli, RFC 3720): a 32-bit checksum of bytes, computed incrementally. Catches damage on the way
/// (any burst up to 32 bits, any odd number of flipped bits), not tampering. On x86-64 it folds 64 to 256 bytes
/// at a time with carry-less multiplication (tens of GB/s where the CPU has VPCLMULQDQ), so checking every block
/// of an upload costs next to nothing beside sending it.
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

    /// The same checksum computed at one of the levels ``level`` names (or the best the CPU has below it): for
    /// tests that hold every version to the same values.
    static func checksum(_ bytes: [UInt8], level: Int32, continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, !raw.isEmpty else { return crc }
            return skylift_crc32c_with(level, crc, base, raw.count)
        }
    }

    /// How the checksum is computed: 0 a table (~10× slower than 1); on x86-64 1 the SSE4.2 `crc32` instruction,
    /// 2 PCLMULQDQ folding, 3 and 4 VPCLMULQDQ folding on 256- and 512-bit registers.
    public static var level: Int { Int(skylift_crc32c_level()) }

    /// Whether a CPU instruction is in use (``level`` > 0); otherwise a table.
    public static var usesHardware: Bool { skylift_crc32c_hardware() != 0 }
}

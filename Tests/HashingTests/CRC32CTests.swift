import Foundation
@testable import Hashing
import SkyliftCore
import Testing

/// CRC-32C against published vectors (RFC 3720 appendix B.4 and the common "123456789" check value), the CPU
/// instruction and the table held to the same answers, and the running block checksums built on it.
@Suite struct CRC32CTests {
    /// The iSCSI SCSI Read (10) command PDU of RFC 3720 B.4.
    static let readPDU: [UInt8] = [
        0x01, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0x14, 0, 0, 0, 0, 0, 0x04, 0, 0, 0, 0, 0x14, 0, 0, 0, 0x18,
        0x28, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0,
    ]

    static let vectors: [([UInt8], UInt32)] = [
        (Array("123456789".utf8), 0xE306_9283),
        ([UInt8](repeating: 0, count: 32), 0x8A91_36AA),
        ([UInt8](repeating: 0xFF, count: 32), 0x62A8_AB43),
        ((0 ..< 32).map { UInt8($0) }, 0x46DD_794E),
        ((0 ..< 32).reversed().map { UInt8($0) }, 0x113F_DB5C),
        (readPDU, 0xD996_3A56),
        ([], 0),
    ]

    @Test func knownVectors() {
        for (input, expected) in Self.vectors {
            #expect(CRC32C.checksum(input) == expected, "\(input.count) bytes")
            #expect(CRC32C.portable(input) == expected, "table, \(input.count) bytes")
        }
    }

    @Test func bigEndianBytesAsTheWireCarriesThem() {
        var c = CRC32C()
        c.update(Array("123456789".utf8))
        #expect(c.bytes == [0xE3, 0x06, 0x92, 0x83])
        #expect(c.bytes.base64String == "4waSgw==")
    }

    /// Every split point, and odd alignments (the instruction path works a word at a time after aligning).
    @Test func incrementalAndMisalignedEqualOneShot() {
        let data = (0 ..< 4099).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        let whole = CRC32C.portable(data)
        #expect(CRC32C.checksum(data) == whole)
        for split in [0, 1, 3, 7, 8, 9, 15, 64, 1000, 4098, 4099] {
            var c = CRC32C()
            c.update(data[0 ..< split])
            c.update(data[split...])
            #expect(c.value == whole, "split at \(split)")
        }
        for start in 0 ..< 9 {
            let slice = Array(data[start...])
            #expect(CRC32C.checksum(data[start...]) == CRC32C.portable(slice), "from \(start)")
        }
    }

    @Test func blockChecksumsStartOverAfterEachBlock() {
        let block = Array("123456789".utf8)
        for algorithm in BlockChecksumAlgorithm.allCases {
            var running = BlockChecksum(algorithm)
            let first = block.withUnsafeBytes { running.update($0); return running.finalizeAndReset() }
            let second = block.withUnsafeBytes { running.update($0); return running.finalizeAndReset() }
            #expect(first.count == algorithm.byteCount && first == second, "\(algorithm)")
            let expected = algorithm == .sha256 ? Digest.hash(.sha256, block) : [0xE3, 0x06, 0x92, 0x83]
            #expect(first == expected, "\(algorithm)")
        }
    }

    /// On the x86-64 machines this project builds on, the instruction is there and used.
    @Test func usesTheInstructionWhereTheCPUHasIt() throws {
        #if arch(x86_64) && os(Linux)
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        #expect(CRC32C.usesHardware == cpuinfo.contains(" sse4_2"))
        #endif
    }
}

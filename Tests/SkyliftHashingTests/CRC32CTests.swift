import Foundation
@testable import SkyliftHashing
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

    /// On the x86-64 machines this project builds on, the instructions are there and used: the level follows the
    /// CPU flags the kernel reports (which it lists only when it also saves the registers they need).
    @Test func usesTheInstructionsWhereTheCPUHasThem() throws {
        #if arch(x86_64) && os(Linux)
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = Set((cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") } ?? "").split(separator: " ").map(String.init))
        #expect(CRC32C.usesHardware == flags.contains("sse4_2"))
        var expected = 0
        if flags.contains("sse4_2") { expected = 1 }
        if expected == 1 && flags.contains("pclmulqdq") { expected = 2 }
        if expected == 2 && flags.contains("vpclmulqdq") && flags.contains("avx2") { expected = 3 }
        if expected == 3 && flags.contains("avx512f") { expected = 4 }
        #expect(CRC32C.level == expected, "flags: \(flags.filter { $0.contains("avx") || $0.contains("clmul") || $0.contains("sse4") }.sorted())")
        #endif
    }

    /// Every level against the table (level 0): the published vectors, then every length around the points where a level
    /// hands over to the next smaller one (64, 128, 256 bytes and their multiples), at odd offsets and from
    /// arbitrary earlier checksums, and a long buffer. Levels the CPU lacks run the best it has, so this also
    /// holds on other machines.
    @Test(arguments: [0, 1, 2, 3, 4] as [Int32])
    func everyLevelAgreesWithTheTable(level: Int32) {
        for (input, expected) in Self.vectors {
            #expect(CRC32C.checksum(input, level: level) == expected, "level \(level), \(input.count) bytes")
        }
        var seed: UInt64 = 0x5EED_0000 &+ UInt64(level)
        func next() -> UInt64 {
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let data = (0 ..< 70000).map { _ in UInt8(truncatingIfNeeded: next()) }
        var lengths = Array(0 ... 300) + Array(500 ... 530) + [1023, 1024, 1025, 4095, 4096, 4097, 65536, 69000]
        lengths += (0 ..< 40).map { _ in Int(next() % 70000) }
        for (i, length) in lengths.enumerated() {
            let offset = i % 13
            let slice = Array(data[offset ..< min(data.count, offset + length)])
            let start = i % 3 == 0 ? 0 : UInt32(truncatingIfNeeded: next())
            let expected = CRC32C.checksum(slice, level: 0, continuing: start)
            #expect(CRC32C.checksum(slice, level: level, continuing: start) == expected, "level \(level), \(slice.count) bytes from \(start)")
        }
    }
}

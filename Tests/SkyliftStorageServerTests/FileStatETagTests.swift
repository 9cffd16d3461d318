@testable import SkyliftStorageServer
import Testing

/// The entity tag written into one buffer says exactly what the plain formula says, for every kind of value.
struct FileStatETagTests {
    private func reference(_ s: FileStat) -> String {
        "\"\(String(s.inode, radix: 16))-\(String(s.size, radix: 16))-\(s.mtime.validatorText)\""
    }

    @Test(arguments: [
        (UInt64(0), Int64(0), Int64(0), Int64(0)),
        (1, 15, 1, 0),
        (16, 16, 1_700_000_000, 123_456_789),
        (0xFFFF_FFFF_FFFF_FFFF, Int64.max, 9_223_372_035, 999_999_999),
        (42, 4096, -1, 5),
        (42, 4096, 9_300_000_000, 0),
        (0xABCDEF, 1 << 40, 0, 1),
    ])
    func fastETagMatchesTheFormula(inode: UInt64, size: Int64, seconds: Int64, nanoseconds: Int64) {
        let stat = FileStat(kind: .file, size: size, inode: inode, device: 3, mtime: FileTime(seconds: seconds, nanoseconds: nanoseconds))
        #expect(stat.etag == reference(stat))
    }
}

@testable import SkyliftStorageServer
import Testing

/// What the digest store remembers of the records it read, against an explicit clock.
struct RecentRecordsTests {
    private func stat(inode: UInt64, device: UInt64 = 1, size: Int64 = 3) -> FileStat {
        FileStat(kind: .file, size: size, inode: inode, device: device, mtime: FileTime(seconds: 1_700_000_000, nanoseconds: 5))
    }

    @Test func aFoundRecordStaysAndAnAbsentOneIsBelievedForTwoSeconds() {
        let recent = RecentRecords()
        let file = stat(inode: 7)
        let record = DigestRecord(sha256: [UInt8](repeating: 1, count: 32), sha1: nil, md5: nil, size: 3, mtime: file.mtime, inode: 7)
        #expect(recent.lookup(.init(file), now: 0) == nil, "nothing read yet")
        recent.remember(record, for: .init(file), now: 0)
        #expect(recent.lookup(.init(file), now: 3_600_000_000_000) == .some(record))

        let bare = stat(inode: 8)
        recent.remember(nil, for: .init(bare), now: 10)
        #expect(recent.lookup(.init(bare), now: 1_000_000_000) == .some(nil), "known to have none")
        #expect(recent.lookup(.init(bare), now: 2_000_000_011) == nil, "read again after two seconds")
        #expect(recent.lookup(.init(bare), now: 2_000_000_012) == nil, "and forgotten")
    }

    @Test func anotherVersionOrAnotherFileSystemIsAnotherEntry() {
        let recent = RecentRecords()
        let file = stat(inode: 7)
        recent.remember(nil, for: .init(file), now: 0)
        #expect(recent.lookup(.init(stat(inode: 7, size: 4)), now: 0) == nil, "resized")
        #expect(recent.lookup(.init(stat(inode: 7, device: 2)), now: 0) == nil, "same inode on another file system")
        for inode in 100 ..< UInt64(100 + RecentRecords.capacity) { recent.remember(nil, for: .init(stat(inode: inode)), now: 0) }
        #expect(recent.lookup(.init(file), now: 0) == nil, "the table starts over past its capacity")
    }
}

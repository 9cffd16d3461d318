import Foundation
import SkyliftSystem
import Testing

/// Early writeback and mount ids, on real files and real mounts of this machine.
@Suite struct KernelExtrasTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("kernel-\(UUID().uuidString)").path

    #if os(Linux)
    @Test func writebackStartsOnAWrittenRangeAndTheBytesStayWhole() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try PrivateFiles.createDirectory(base)
        let fd = try FileDescriptor.open(base + "/data", .writeOnly, options: [.create, .exclusive])
        defer { fd.close() }
        let bytes = (0 ..< 3 << 20).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        try bytes.withUnsafeBytes { try fd.writeAll($0, path: "data") }
        #expect(fd.startWriteback(offset: 0, length: Int64(bytes.count)))
        try fd.sync(path: "data")
        #expect(try Data(contentsOf: URL(fileURLWithPath: base + "/data")) == Data(bytes))
        // A pipe has no pages to write back: refused, and nothing else happens.
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(!FileDescriptor(rawValue: ends[1]).startWriteback(offset: 0, length: 1))
    }

    @Test func mountIdsTellMountsApartAndAgreeWithinOne() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try PrivateFiles.createDirectory(base)
        try Data("x".utf8).write(to: URL(fileURLWithPath: base + "/file"))
        let folder = try FileDescriptor.open(base, .readOnly, options: .directory)
        defer { folder.close() }
        let file = try FileDescriptor.open("file", .readOnly, in: folder)
        defer { file.close() }
        let proc = try FileDescriptor.open("/proc", .readOnly, options: .directory)
        defer { proc.close() }
        let here = try #require(folder.mountID())
        #expect(file.mountID() == here)
        // /proc is always its own mount.
        #expect(try #require(proc.mountID()) != here)
    }
    #endif
}

import Foundation
import SkyliftSystem
import Testing

/// Mount ids, on real files and real mounts of this machine.
@Suite struct MountIDTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("kernel-\(UUID().uuidString)").path

    #if os(Linux)
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

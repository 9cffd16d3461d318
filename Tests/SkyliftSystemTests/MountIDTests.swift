import Foundation
import SkyliftSystem
import TestProbes
import Testing

/// Mount ids, on real files and real mounts of this machine.
@Suite struct MountIDTests {
    /// Made by the code under test (or the test); one per test, removed after it.
    let scratch: TempFolder
    var base: String { scratch.url.path }

    init() throws {
        scratch = try TempFolder("kernel", create: false)
    }

    #if os(Linux)
    @Test func mountIdsTellMountsApartAndAgreeWithinOne() throws {
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

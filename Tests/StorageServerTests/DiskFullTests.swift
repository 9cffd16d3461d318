import Foundation
import Testing
import TestPrograms

/// A 1 MiB tmpfs as the root makes the disk really fill up. Mounting needs root, so the suite runs only then.
@Suite(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct DiskFullTests {
    static func mountTinyDisk() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = try TestPrograms.path("mount")
        p.arguments = ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir.path]
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "mount tmpfs failed")
        return dir
    }

    static func unmount(_ dir: URL) {
        if let umount = try? TestPrograms.path("umount") {
            let p = Process()
            p.executableURL = umount
            p.arguments = [dir.path]
            try? p.run()
            p.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: dir)
    }

    @Test func putAndPatchOnAFullDiskAnswer507AndLeaveNothingBehind() throws {
        let disk = try Self.mountTinyDisk()
        defer { Self.unmount(disk) }
        let f = try ServerFixture(root: disk)
        defer { f.stop() }
        let big = try tempFile(randomBytes(3_000_000))
        defer { try? FileManager.default.removeItem(at: big) }
        let put = try Curl.run(["-T", big.path, f.url("/dav/big.bin")])
        #expect(put.status == 507)
        #expect(!FileManager.default.fileExists(atPath: disk.appendingPathComponent("big.bin").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path).filter { $0.hasPrefix(".skylift-put") }.isEmpty)

        let loc = try TusTests.create(f, folder: "/dav/", length: 3_000_000, name: "big.bin")
        let patch = try Curl.run(["-X", "PATCH"] + TusTests.tus + TusTests.octets + ["-H", "Upload-Offset: 0",
                                  "--data-binary", "@\(big.path)", f.url(loc)])
        #expect(patch.status == 507)
        #expect(try TusTests.offset(f, loc) == 0)
        // Space is back after the refusals: a small PUT works.
        let small = try tempFile(randomBytes(10_000))
        defer { try? FileManager.default.removeItem(at: small) }
        #expect(try Curl.run(["-T", small.path, f.url("/dav/small.bin")]).status == 201)
    }
}

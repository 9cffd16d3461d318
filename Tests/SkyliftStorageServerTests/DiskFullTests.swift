import Foundation
import Testing
import TestPrograms
import TestProbes

/// A 1 MiB tmpfs as the root makes the disk really fill up. Mounting needs root, so the suite runs only then.
@Suite(.enabled(if: Tmpfs.available, "mounting a tmpfs needs root"))
struct DiskFullTests {
    /// A fresh folder with a tmpfs of `size` mounted over it (see ``Tmpfs``).
    static func mountTinyDisk(size: String = "1m", inodes: Int? = nil) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Tmpfs.mount(dir, size: size, inodes: inodes)
        return dir
    }

    static func unmount(_ dir: URL) {
        Tmpfs.unmount(dir)
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
        #expect(put.text.contains("insufficient storage for /big.bin"), "\(put.text)")
        #expect(!FileManager.default.fileExists(atPath: disk.appendingPathComponent("big.bin").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path).filter { $0.hasPrefix(".skylift-put") }.isEmpty)

        // A declared length that cannot fit is refused at creation; a deferred one at its PATCH, from the head.
        let refused = try Curl.run(["-X", "POST"] + TusTests.tus + ["-H", "Upload-Length: 3000000", f.url("/dav/")])
        #expect(refused.status == 507 && refused.header("Location") == nil)
        let loc = try TusTests.create(f, folder: "/dav/", length: nil, name: "big.bin")
        let patch = try Curl.run(["-X", "PATCH"] + TusTests.tus + TusTests.octets + ["-H", "Upload-Offset: 0",
                                  "--data-binary", "@\(big.path)", f.url(loc)])
        #expect(patch.status == 507)
        #expect(try TusTests.offset(f, loc) == 0)
        // Space is back after the refusals: a small PUT works.
        let small = try tempFile(randomBytes(10_000))
        defer { try? FileManager.default.removeItem(at: small) }
        #expect(try Curl.run(["-T", small.path, f.url("/dav/small.bin")]).status == 201)
    }

    /// A body of declared length that does not fit is answered before it is read: curl, which waits for
    /// `100 Continue` before a large body, sends none of it. One of unknown length (chunked) is answered when
    /// the disk fills, and the connection is closed instead of the rest being read.
    @Test func aBodyThatCannotFitIsRefusedBeforeItIsSent() throws {
        let disk = try Self.mountTinyDisk(size: "4m")
        defer { Self.unmount(disk) }
        let f = try ServerFixture(root: disk)
        defer { f.stop() }
        let big = try tempFile(randomBytes(12 << 20))
        defer { try? FileManager.default.removeItem(at: big) }
        let sized = try Self.curlUpload(["-T", big.path, f.url("/dav/big.bin")])
        #expect(sized.status == 507 && sized.uploaded <= 1 << 20, "\(sized)")
        let chunked = try Self.curlUpload(["-H", "Transfer-Encoding: chunked", "-T", big.path, f.url("/dav/big.bin")])
        #expect(chunked.status == 507, "\(chunked)")
        #expect(chunked.uploaded < 12 << 20, "the rest of the body was not read: \(chunked)")
        // The closed connection's line is written once the server has let go of it, which may be after curl has.
        var lines: [String] = []
        for _ in 0..<100 {
            lines = f.log.all.filter { $0.contains("PUT /dav/big.bin") }
            if lines.count == 2 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(lines.count == 2 && lines[0].contains(" 507 in=0 "), "\(f.log.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path).filter { !$0.hasPrefix(".skylift-") }.isEmpty)
    }

    /// COPY builds its copy beside the destination and only then replaces it: a COPY that runs out of space
    /// leaves the file or folder it was to replace exactly as it was, and no partial copy.
    @Test func aCopyThatRunsOutOfSpaceLeavesTheDestinationAsItWas() throws {
        let disk = try Self.mountTinyDisk(size: "2m")
        defer { Self.unmount(disk) }
        let f = try ServerFixture(root: disk)
        defer { f.stop() }
        let big = randomBytes(1_200_000), old = randomBytes(1000)
        try f.write("big.bin", big)
        try f.write("pre1.bin", old)
        let copy = try Curl.run(["-X", "COPY", "-H", "Destination: \(f.url("/dav/pre1.bin"))", f.url("/dav/big.bin")])
        #expect(copy.status == 507, "\(copy.status) \(copy.text)")
        #expect(try Curl.run([f.url("/dav/pre1.bin")]).body == old)
        try FileManager.default.removeItem(at: f.file("big.bin"))
        try f.write("tree/a.bin", big)
        try f.write("dest/keep.txt", Array("kept".utf8))
        let tree = try Curl.run(["-X", "COPY", "-H", "Destination: \(f.url("/dav/dest/"))", f.url("/dav/tree/")])
        #expect(tree.status == 507, "\(tree.status) \(tree.text)")
        #expect(try Curl.run([f.url("/dav/dest/keep.txt")]).text == "kept")
        #expect(!FileManager.default.fileExists(atPath: f.file("dest/a.bin").path))
        let hidden = try FileManager.default.contentsOfDirectory(atPath: disk.path).filter { $0.hasPrefix(".skylift-copy") }
        #expect(hidden.isEmpty, "\(hidden)")
        // Space is freed: the same COPYs finish, exactly.
        try Tmpfs.remount(disk, "size=8m")
        #expect(try Curl.run(["-X", "COPY", "-H", "Destination: \(f.url("/dav/dest/"))", f.url("/dav/tree/")]).status == 204)
        #expect(try Array(Data(contentsOf: f.file("dest/a.bin"))) == big)
        #expect(!FileManager.default.fileExists(atPath: f.file("dest/keep.txt").path))
    }

    /// A MOVE that replaces a folder needs its journal record first: with no room for it the MOVE is refused
    /// and both folders stay as they were; with room again it goes through whole.
    @Test func aMoveWithNoRoomForItsJournalChangesNothing() throws {
        let disk = try Self.mountTinyDisk(size: "1m", inodes: 24)
        defer { Self.unmount(disk) }
        let f = try ServerFixture(root: disk)
        defer { f.stop() }
        try f.write("src/new.txt", Array("new".utf8))
        try f.write("dst/old.txt", Array("old".utf8))
        var n = 0
        while (try? f.write("z\(n)", [])) != nil, n < 1000 { n += 1 }
        let move = try Curl.run(["-X", "MOVE", "-H", "Destination: /dav/dst/", f.url("/dav/src/")])
        #expect(move.status == 507, "\(move.status) \(move.text)")
        #expect(try String(contentsOf: f.file("src/new.txt"), encoding: .utf8) == "new")
        #expect(try String(contentsOf: f.file("dst/old.txt"), encoding: .utf8) == "old")
        try Tmpfs.remount(disk, "nr_inodes=1000")
        #expect(try Curl.run(["-X", "MOVE", "-H", "Destination: /dav/dst/", f.url("/dav/src/")]).status == 204)
        #expect(try String(contentsOf: f.file("dst/new.txt"), encoding: .utf8) == "new")
        #expect(!FileManager.default.fileExists(atPath: f.file("dst/old.txt").path))
    }


    /// A tus PATCH that fills the disk keeps what it wrote: the client resumes from that offset once space is
    /// back and sends none of those bytes again, and the file is exact.
    @Test func aPatchThatFillsTheDiskKeepsItsBytesForTheResume() throws {
        let disk = try Self.mountTinyDisk(size: "2m")
        defer { Self.unmount(disk) }
        let f = try ServerFixture(root: disk)
        defer { f.stop() }
        let body = randomBytes(1_500_000)
        try f.write("filler.bin", randomBytes(1_000_000))
        let loc = try TusTests.create(f, folder: "/dav/", length: nil, name: "clip.bin")
        let first = try tempFile(body)
        defer { try? FileManager.default.removeItem(at: first) }
        // Chunked, so the head says nothing of the length and the disk fills mid-body.
        let patch = try Curl.run(["-X", "PATCH"] + TusTests.tus + TusTests.octets + ["-H", "Upload-Offset: 0",
                                  "-H", "Transfer-Encoding: chunked", "--data-binary", "@\(first.path)", f.url(loc)])
        #expect(patch.status == 507, "\(patch.status) \(patch.text)")
        let kept = try #require(try TusTests.offset(f, loc))
        #expect(kept > 0 && kept < body.count, "kept \(kept)")
        try FileManager.default.removeItem(at: f.file("filler.bin"))
        let rest = try TusTests.patch(f, loc, offset: kept, Array(body[kept...]), extra: ["-H", "Upload-Length: \(body.count)"])
        #expect(rest.status == 204, "\(rest.status) \(rest.text)")
        #expect(try Array(Data(contentsOf: f.file("clip.bin"))) == body)
    }

    /// PROPPATCH, MKCOL and LOCK on a full disk answer 507 and change nothing.
    @Test func smallWritesOnAFullDiskAnswer507() throws {
        let disk = try Self.mountTinyDisk(size: "1m", inodes: 24)
        defer { Self.unmount(disk) }
        let f = try ServerFixture(root: disk)
        defer { f.stop() }
        try f.write("a.txt", Array("a".utf8))
        // Use up the entries; a tmpfs charges extended attributes to the same budget.
        var n = 0
        while (try? f.write("z\(n)", [])) != nil, n < 1000 { n += 1 }
        let set = "<?xml version=\"1.0\"?><D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:set><D:prop>"
            + "<Z:note>\(String(repeating: "x", count: 3000))</Z:note></D:prop></D:set></D:propertyupdate>"
        let patch = try Curl.run(["-X", "PROPPATCH", "-H", "Content-Type: application/xml", "--data-binary", set, f.url("/dav/a.txt")])
        #expect(patch.status == 207 && patch.text.contains("507"), "\(patch.text)")
        #expect(try Curl.run(["-X", "MKCOL", f.url("/dav/newdir")]).status == 507)
        let lock = "<?xml version=\"1.0\"?><D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:exclusive/></D:lockscope>"
            + "<D:locktype><D:write/></D:locktype></D:lockinfo>"
        #expect(try Curl.run(["-X", "LOCK", "-H", "Content-Type: application/xml", "--data-binary", lock, f.url("/dav/newfile")]).status == 507)
    }

    /// curl's status and the bytes it sent (`%{size_upload}`).
    static func curlUpload(_ args: [String]) throws -> (status: Int, uploaded: Int) {
        let p = Process()
        p.executableURL = try TestPrograms.path("curl")
        p.arguments = ["-s", "-o", "/dev/null", "--max-time", "30", "-w", "%{http_code} %{size_upload}"] + Curl.auth + args
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let parts = text.split(separator: " ").compactMap { Int($0) }
        return (parts.first ?? 0, parts.count > 1 ? parts[1] : -1)
    }
}

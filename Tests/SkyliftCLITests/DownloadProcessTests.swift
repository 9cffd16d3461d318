import Foundation
import Testing
import TestProbes
import TestPrograms
#if canImport(Glibc)
import Glibc
#endif

/// Waits (up to 30 s) until the hidden partial file at `part` holds `bytes`; false if it never does.
func waitForPartial(_ part: URL, atLeast bytes: Int) -> Bool {
    for _ in 0..<3000 {
        if ((try? FileManager.default.attributesOfItem(atPath: part.path))?[.size] as? Int ?? 0) >= bytes { return true }
        usleep(10_000)
    }
    return false
}

/// `skylift download` against the embedded cloud (`skylift serve`), through the built binary: a tree comes
/// back with its files and times, a second run fetches nothing, a killed run continues, a changed remote file
/// starts over, a corrupted served file is caught, and `--delete` removes only what it should.
@Suite(.serialized) struct DownloadProcessTests {
    /// Puts `bytes` random bytes into the cloud at `folder/name` through `upload` (so the server records its
    /// digest), and returns them.
    func put(_ cloud: CloudFixture, _ name: String, in folder: String, bytes: Int) throws -> Data {
        let data = try #require(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: bytes)
        let file = cloud.dir.appendingPathComponent("src-\(UUID().uuidString)").appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        let up = try cloud.upload(file, folder: folder)
        let (_, status) = up.finish()
        try #require(status == 0, "upload of \(name): \(up.errorText)")
        try FileManager.default.removeItem(at: file.deletingLastPathComponent())
        return data
    }

    func download(_ cloud: CloudFixture, _ url: String, into out: URL, _ extra: [String] = []) throws -> TransferProcess {
        try TransferProcess(["download", url, out.path, "--token", cloud.token, "--json"] + extra)
    }

    func kinds(_ events: [[String: Any]]) -> [String] { events.compactMap { $0["event"] as? String } }

    func mtime(_ url: URL) throws -> Int {
        Int((try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date)?.timeIntervalSince1970.rounded(.down) ?? -1)
    }

    @Test func aTreeComesBackWithItsContentsAndTimes() throws {
        let cloud = try CloudFixture()
        let files = [("a.jpg", ""), ("b.raw", "2026/"), ("c.txt", "2026/march/")]
        var contents: [String: Data] = [:]
        for (name, folder) in files { contents[folder + name] = try put(cloud, name, in: folder, bytes: 70_000) }
        let out = cloud.dir.appendingPathComponent("restore")
        let run = try download(cloud, cloud.url, into: out)
        let (events, status) = run.finish()
        #expect(status == 0, "\(run.errorText)")
        for (path, data) in contents {
            #expect(try Data(contentsOf: out.appendingPathComponent(path)) == data, "\(path)")
            #expect(try mtime(out.appendingPathComponent(path)) == mtime(cloud.root.appendingPathComponent(path)), "\(path)")
        }
        let done = events.filter { $0["event"] as? String == "done" }
        #expect(done.count == 3 && done.allSatisfy { $0["verified"] as? String == "sha-256" }, "\(events)")
        // Nothing but the files: no partial files or records left beside them.
        let left = try FileManager.default.subpathsOfDirectory(atPath: out.path).filter { $0.contains(".skylift-") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aSecondRunFetchesNothing() throws {
        let cloud = try CloudFixture(accessLog: true)
        _ = try put(cloud, "one.bin", in: "s/", bytes: 50_000)
        _ = try put(cloud, "two.bin", in: "s/deeper/", bytes: 60_000)
        let out = cloud.dir.appendingPathComponent("restore")
        #expect(try download(cloud, cloud.url + "s/", into: out).finish().1 == 0)
        let gets = cloud.requests("GET").count
        let again = try download(cloud, cloud.url + "s/", into: out)
        let (events, status) = again.finish()
        #expect(status == 0, "\(again.errorText)")
        #expect(kinds(events).filter { $0 == "skipped" }.count == 2 && !kinds(events).contains("done"), "\(kinds(events))")
        #expect(cloud.requests("GET").count == gets, "a second run read file data")
    }

    /// A relay in front of the cloud that passes answers at about 16 MiB/s, so a kill lands mid-file.
    func slowBase(_ cloud: CloudFixture) throws -> (FlipRelay, String) {
        let relay = try FlipRelay(upstream: UInt16(URL(string: cloud.url)?.port ?? 0), answerPause: 4000)
        var c = try #require(URLComponents(string: cloud.url))
        c.port = Int(relay.port)
        return (relay, c.string ?? cloud.url)
    }

    /// Starts a download of `folder` into `out` through `relay` and kills it (SIGKILL) once the hidden partial
    /// file of `name` holds at least 4 MiB.
    func killMidFile(_ cloud: CloudFixture, _ base: String, _ relay: FlipRelay, folder: String, name: String, out: URL) throws {
        let first = try download(cloud, base + folder, into: out)
        let reached = waitForPartial(out.appendingPathComponent(".\(name).skylift-part"), atLeast: 4 << 20)
        first.kill9()
        relay.cut()
        try #require(reached, "the partial file never reached 4 MiB")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path))
    }

    @Test func aKilledDownloadContinuesWhereTheBytesStopped() throws {
        let cloud = try CloudFixture()
        let data = try put(cloud, "long.bin", in: "v/", bytes: 24 << 20)
        let (relay, base) = try slowBase(cloud)
        let out = cloud.dir.appendingPathComponent("restore")
        try killMidFile(cloud, base, relay, folder: "v/", name: "long.bin", out: out)
        let second = try download(cloud, base + "v/", into: out)
        let (events, status) = second.finish()
        #expect(status == 0, "\(second.errorText)")
        let from = int(try #require(events.first { $0["event"] as? String == "resumed" }, "\(kinds(events))")["from"])
        let done = try #require(events.first { $0["event"] as? String == "done" })
        #expect(from >= 4 << 20 && int(done["fetched"]) == Int64(data.count) - from, "\(done)")
        #expect(done["verified"] as? String == "sha-256")
        #expect(try Data(contentsOf: out.appendingPathComponent("long.bin")) == data)
    }

    @Test func aRemoteFileChangedSinceTheKillStartsOver() throws {
        let cloud = try CloudFixture()
        _ = try put(cloud, "long.bin", in: "w/", bytes: 24 << 20)
        let (relay, base) = try slowBase(cloud)
        let out = cloud.dir.appendingPathComponent("restore")
        try killMidFile(cloud, base, relay, folder: "w/", name: "long.bin", out: out)
        // Replaced on the server: same size, other bytes, another ETag.
        let replaced = Data(repeating: 0x5A, count: 24 << 20)
        try replaced.write(to: cloud.root.appendingPathComponent("w/long.bin"))
        let second = try download(cloud, cloud.url + "w/", into: out)
        let (events, status) = second.finish()
        #expect(status == 0, "\(second.errorText)")
        #expect(kinds(events).contains("restarted") && !kinds(events).contains("resumed"), "\(kinds(events))")
        let done = try #require(events.first { $0["event"] as? String == "done" })
        #expect(int(done["fetched"]) == Int64(replaced.count))
        #expect(try Data(contentsOf: out.appendingPathComponent("long.bin")) == replaced)
    }

    @Test func aCorruptedServedFileIsCaughtAndNothingIsLeft() throws {
        let cloud = try CloudFixture()
        _ = try put(cloud, "rot.bin", in: "r/", bytes: 300_000)
        // One byte flipped on the server's disk, size, inode and time kept: its digest record still matches
        // the file's identity, so the server goes on serving the old digest (what `skylift scrub` finds).
        let path = cloud.root.appendingPathComponent("r/rot.bin").path
        var st = stat()
        try #require(stat(path, &st) == 0)
        let fd = open(path, O_WRONLY)
        var byte: UInt8 = 0x42
        _ = pwrite(fd, &byte, 1, 1000)
        close(fd)
        var times = [st.st_atim, st.st_mtim]
        _ = utimensat(AT_FDCWD, path, &times, 0)

        let out = cloud.dir.appendingPathComponent("restore")
        let run = try download(cloud, cloud.url + "r/", into: out)
        let (events, status) = run.finish()
        #expect(status == 1)
        let restarted = events.first { $0["event"] as? String == "restarted" }?["reason"] as? String ?? ""
        #expect(restarted.contains("mismatch"), "\(events)")
        let failed = events.first { $0["event"] as? String == "failed" }?["error"] as? String ?? ""
        #expect(failed.contains("sha-256 mismatch"), "\(failed)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? [] == [], "something was left")
    }

    @Test func deleteRemovesOnlyWhatTheRemoteNoLongerHas() throws {
        let cloud = try CloudFixture()
        let keep = try put(cloud, "keep.txt", in: "d/", bytes: 1000)
        let out = cloud.dir.appendingPathComponent("restore")
        let outside = cloud.dir.appendingPathComponent("outside.txt")
        try FileManager.default.createDirectory(at: out.appendingPathComponent("sub"), withIntermediateDirectories: true)
        for name in ["extra.txt", "sub/old.txt", "notes.keep"] { try Data("x".utf8).write(to: out.appendingPathComponent(name)) }
        try Data("outside".utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("link").path, withDestinationPath: outside.path)

        #expect(try download(cloud, cloud.url + "d/", into: out).finish().1 == 0)
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("extra.txt").path), "removed without --delete")

        let run = try download(cloud, cloud.url + "d/", into: out, ["--delete", "--exclude", "*.keep"])
        let (events, status) = run.finish()
        #expect(status == 0, "\(run.errorText)")
        let deleted = Set(events.filter { $0["event"] as? String == "deleted" }.compactMap { $0["file"] as? String })
        #expect(deleted == ["extra.txt", "sub/old.txt", "link"])
        #expect(try Data(contentsOf: out.appendingPathComponent("keep.txt")) == keep)
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("notes.keep").path), "an excluded file was deleted")
        #expect(try Data(contentsOf: outside) == Data("outside".utf8), "the link's target was touched")
    }

    @Test func aLinkPlantedInTheDestinationIsNotFollowed() throws {
        let cloud = try CloudFixture()
        _ = try put(cloud, "x.txt", in: "l/sub/", bytes: 100)
        let out = cloud.dir.appendingPathComponent("restore"), elsewhere = cloud.dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("sub").path, withDestinationPath: elsewhere.path)
        let run = try download(cloud, cloud.url + "l/", into: out)
        let (events, status) = run.finish()
        #expect(status == 1)
        let error = events.first { $0["event"] as? String == "failed" }?["error"] as? String ?? ""
        #expect(error.contains("a symbolic link is in the way"), "\(events)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == [])
    }

    @Test func includeAndExcludeChooseFilesAndFolders() throws {
        let cloud = try CloudFixture()
        for (name, folder) in [("a.jpg", "g/"), ("b.txt", "g/"), ("c.jpg", "g/raw/"), ("d.jpg", "g/keep/")] {
            _ = try put(cloud, name, in: folder, bytes: 100)
        }
        let out = cloud.dir.appendingPathComponent("restore")
        let run = try download(cloud, cloud.url + "g/", into: out, ["--include", "*.jpg", "--exclude", "raw"])
        #expect(run.finish().1 == 0, "\(run.errorText)")
        let files = try FileManager.default.subpathsOfDirectory(atPath: out.path).filter { !$0.hasSuffix("keep") }.sorted()
        #expect(files == ["a.jpg", "keep/d.jpg"])
    }

    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root")) func aFullDiskFailsClearlyAndLeavesNothing() throws {
        let cloud = try CloudFixture()
        _ = try put(cloud, "big.bin", in: "f/", bytes: 3 << 20)
        let out = cloud.dir.appendingPathComponent("tiny")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try #require(try runProgram(TestPrograms.path("mount"), ["-t", "tmpfs", "-o", "size=1m", "tmpfs", out.path]).status == 0)
        defer { _ = try? runProgram(TestPrograms.path("umount"), [out.path]) }
        let run = try download(cloud, cloud.url + "f/", into: out)
        let (events, status) = run.finish()
        #expect(status == 1)
        let failed = events.first { $0["event"] as? String == "failed" }?["error"] as? String ?? ""
        #expect(failed.contains("no space left"), "\(failed)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == [], "something was left on the full disk")
    }
}

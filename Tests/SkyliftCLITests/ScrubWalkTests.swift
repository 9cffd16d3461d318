import Foundation
import TestProbes
import Testing
import TestPrograms

/// `skylift scrub` on hostile trees: deeper than its limit, links out of the store, special files, and (as
/// root) another file system and a bind mount below the root. Nothing of those is read or recorded, and each
/// is reported as skipped, in the text and in `--json`.
@Suite(.serialized) struct ScrubWalkTests {
    /// A scratch folder holding `root` (the store) and `outside` (what the store must not reach).
    final class Scratch {
        let scratch: TempFolder
        var dir: URL { scratch.url }
        var root: URL { dir.appendingPathComponent("root") }
        var outside: URL { dir.appendingPathComponent("outside") }
        var mounted: [URL] = []

        init() throws {
            scratch = try TempFolder("scrubwalk")
            for d in ["root", "outside"] { try scratch.folder(d) }
        }

        func write(_ path: String, in base: URL? = nil, _ text: String = "some bytes") throws {
            let url = (base ?? root).appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }

        /// `mount ARGS… DIR` (DIR made first); the mount is undone at the end.
        func mount(_ arguments: [String], at dir: URL) throws {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try #require(try Self.run("mount", arguments + [dir.path]) == 0, "mount \(arguments) failed")
            mounted.append(dir)
        }

        static func run(_ program: String, _ arguments: [String]) throws -> Int32 {
            let p = Process()
            p.executableURL = try TestPrograms.path(program)
            p.arguments = arguments
            try p.run()
            p.waitUntilExit()
            return p.terminationStatus
        }

        /// Mounts are undone before `scratch` (a stored property) removes the folder.
        deinit {
            for dir in mounted.reversed() { _ = try? Self.run("umount", [dir.path]) }
        }
    }

    /// The change time of `url`: setting an extended attribute (a record) would move it.
    static func changeTime(_ url: URL) throws -> timespec {
        var st = stat()
        try #require(lstat(url.path, &st) == 0)
        return st.st_ctim
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], Comment(rawValue: text))
    }

    static func skipped(_ report: [String: Any]) -> [String: String] {
        let list = report["skipped"] as? [[String: Any]] ?? []
        return Dictionary(list.compactMap { s in (s["path"] as? String).map { ($0, s["reason"] as? String ?? "") } }) { a, _ in a }
    }

    static func findingPaths(_ report: [String: Any]) -> Set<String> {
        Set((report["findings"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String })
    }

    @Test func foldersPastTheDepthLimitLinksAndSpecialFilesAreSkippedAndReported() throws {
        let s = try Scratch()
        // 130 folders deep: the one with 128 names is not entered, so edge.txt (128 names) is the deepest read.
        let chain = Array(repeating: "d", count: 130)
        try s.write(chain.prefix(127).joined(separator: "/") + "/edge.txt")
        try s.write(chain.joined(separator: "/") + "/bottom.txt")
        try s.write("top.txt")
        try s.write("secret.txt", in: s.outside, "outside the store")
        try FileManager.default.createSymbolicLink(at: s.root.appendingPathComponent("link-out"), withDestinationURL: s.outside)
        try FileManager.default.createSymbolicLink(at: s.root.appendingPathComponent("link-file"),
                                                   withDestinationURL: s.outside.appendingPathComponent("secret.txt"))
        try #require(mkfifo(s.root.appendingPathComponent("fifo").path, 0o600) == 0)
        let secretChanged = try Self.changeTime(s.outside.appendingPathComponent("secret.txt"))

        let run = try IntegrityProcessTests.skylift(["scrub", "--root", s.root.path, "--json"])
        #expect(run.status == 0, Comment(rawValue: run.out + run.err))
        let report = try Self.json(run.out)
        let tooDeep = chain.prefix(128).joined(separator: "/")
        #expect(Self.skipped(report) == [tooDeep: "too-deep", "link-out": "link", "link-file": "link", "fifo": "special"],
                Comment(rawValue: run.out))
        #expect(Self.findingPaths(report) == ["top.txt", chain.prefix(127).joined(separator: "/") + "/edge.txt"])
        #expect(report["files"] as? Int == 2 && report["recorded"] as? Int == 2)
        // Nothing behind the links was read or recorded.
        let after = try Self.changeTime(s.outside.appendingPathComponent("secret.txt"))
        #expect(after.tv_sec == secretChanged.tv_sec && after.tv_nsec == secretChanged.tv_nsec)

        let text = try IntegrityProcessTests.skylift(["scrub", "--root", s.root.path])
        #expect(text.status == 0)
        #expect(text.out.contains("2 files") && text.out.contains("2 ok") && text.out.contains("4 skipped"), Comment(rawValue: text.out))
        #expect(text.out.contains("  skipped (too-deep): \(tooDeep) (folders deeper than 128 are not entered)"), Comment(rawValue: text.out))
        #expect(text.out.contains("  skipped (link): link-out\n") && text.out.contains("  skipped (special): fifo\n"),
                Comment(rawValue: text.out))
        let status = try IntegrityProcessTests.skylift(["status", "--root", s.root.path])
        #expect(status.out.contains("4 skipped"), Comment(rawValue: status.out))
    }

    @Test(.enabled(if: getuid() == 0, "mounting needs root"))
    func anotherFileSystemAndABindMountBelowTheRootAreNotWalked() throws {
        let s = try Scratch()
        try s.write("plain.txt")
        // A tmpfs below the root (another device), and a bind mount of a folder outside the root on the root's
        // own file system (the same device: only the mount id tells it apart).
        try s.mount(["-t", "tmpfs", "-o", "size=1m", "tmpfs"], at: s.root.appendingPathComponent("mnt"))
        try s.write("mnt/in-tmpfs.txt")
        try s.write("bound/bound.txt", in: s.outside)
        try s.mount(["--bind", s.outside.appendingPathComponent("bound").path], at: s.root.appendingPathComponent("sub/bind"))
        let boundChanged = try Self.changeTime(s.outside.appendingPathComponent("bound/bound.txt"))

        let run = try IntegrityProcessTests.skylift(["scrub", "--root", s.root.path, "--json"])
        #expect(run.status == 0, Comment(rawValue: run.out + run.err))
        let report = try Self.json(run.out)
        #expect(Self.skipped(report) == ["mnt": "other-file-system", "sub/bind": "other-mount"], Comment(rawValue: run.out))
        #expect(Self.findingPaths(report) == ["plain.txt"])
        #expect(report["files"] as? Int == 1 && report["recorded"] as? Int == 1)
        let after = try Self.changeTime(s.outside.appendingPathComponent("bound/bound.txt"))
        #expect(after.tv_sec == boundChanged.tv_sec && after.tv_nsec == boundChanged.tv_nsec, "the bound file was recorded")

        let text = try IntegrityProcessTests.skylift(["scrub", "--root", s.root.path, "--no-record"])
        #expect(text.out.contains("  skipped (other-file-system): mnt\n") && text.out.contains("  skipped (other-mount): sub/bind\n"),
                Comment(rawValue: text.out))
    }
}

import Foundation
import TestProbes
import Testing
import TestPrograms

/// rclone (Debian), a WebDAV client no one here wrote: a tree up, back down, and a check in between.
@Suite struct RcloneTests {
    static func rclone(_ f: ServerFixture, _ args: [String], vendor: String = "other") throws -> (out: String, status: Int32) {
        try runTool(TestPrograms.path("rclone"), ["--config", "/dev/null", "--low-level-retries", "1", "--retries", "1"] + args, environment: [
            "RCLONE_CONFIG_SKY_TYPE": "webdav", "RCLONE_CONFIG_SKY_URL": f.url("/dav/"),
            "RCLONE_CONFIG_SKY_VENDOR": vendor, "RCLONE_CONFIG_SKY_BEARER_TOKEN": ServerFixture.token,
        ])
    }

    @Test func treeRoundTripsThroughRclone() throws {
        let f = try ServerFixture()
        let scratch = try TempFolder("rclone")
        let local = scratch.appending("src"), back = scratch.appending("back")
        let files = ["a.bin": randomBytes(1_500_000), "deep/er/b c.txt": Array("hello".utf8),
                     "deep/ünïcode & more#.mp4": randomBytes(70_000), "empty.dat": []]
        for (name, bytes) in files {
            let u = local.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: u)
        }
        let up = try Self.rclone(f, ["copy", local.path, "sky:backup"])
        #expect(up.status == 0, Comment(rawValue: up.out))
        for (name, bytes) in files {
            #expect(try Array(Data(contentsOf: f.file("backup/" + name))) == bytes, "\(name)")
        }
        let check = try Self.rclone(f, ["check", local.path, "sky:backup"])
        #expect(check.status == 0, Comment(rawValue: check.out))
        let down = try Self.rclone(f, ["copy", "sky:backup", back.path])
        #expect(down.status == 0, Comment(rawValue: down.out))
        for (name, bytes) in files {
            #expect(try Array(Data(contentsOf: back.appendingPathComponent(name))) == bytes, "\(name)")
        }
        let moved = try Self.rclone(f, ["moveto", "sky:backup/a.bin", "sky:backup/deep/a-moved.bin"])
        #expect(moved.status == 0, Comment(rawValue: moved.out))
        #expect(try Array(Data(contentsOf: f.file("backup/deep/a-moved.bin"))) == files["a.bin"])
        #expect(try Self.rclone(f, ["purge", "sky:backup/deep"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: f.file("backup/deep").path))
    }
}

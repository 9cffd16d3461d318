import Foundation
import Testing
@testable import SkyliftStorageServer
import SkyliftCore
import SkyliftSystem

/// What a crash or a failure in the middle of a write may leave: the old entry or the new one, whole, with its
/// own properties. These tests set up the states a crash leaves between two steps and start a server on them.
@Suite struct AtomicWriteTests {
    static func setRating(_ f: ServerFixture, _ path: String, _ value: String) throws {
        let set = "<?xml version=\"1.0\"?><D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:skylift:test\">"
            + "<D:set><D:prop><Z:rating>\(value)</Z:rating></D:prop></D:set></D:propertyupdate>"
        let r = try Curl.run(["-X", "PROPPATCH"] + WebDAVTests.xml + ["--data-binary", set, f.url(path)])
        #expect(r.status == 207 && r.text.contains("200 OK"), "\(r.text)")
    }

    static func rating(_ f: ServerFixture, _ path: String) throws -> String? {
        let ask = "<?xml version='1.0'?><D:propfind xmlns:D='DAV:'><D:prop><Q:rating xmlns:Q='urn:skylift:test'/></D:prop></D:propfind>"
        let text = try WebDAVTests.propfind(f, path, depth: "0", body: ask).text
        // Stored: `<P:rating xmlns:P="urn:skylift:test">value</P:rating>`; missing: an empty element under 404.
        guard let r = text.range(of: #"rating xmlns:[A-Za-z]+="urn:skylift:test">[^<]*<"#, options: .regularExpression) else { return nil }
        return String(text[r].drop { $0 != ">" }.dropFirst().dropLast())
    }

    static func hidden(_ f: ServerFixture, _ prefix: String, in folder: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: f.file(folder).path).filter { $0.hasPrefix(prefix) }
    }

    /// Properties live on the file: a MOVE carries them, a DELETE takes them, and the next file of that name
    /// starts without them; a PUT over the file keeps them.
    @Test func propertiesTravelWithTheFileAndDieWithIt() throws {
        let f = try ServerFixture()
        try f.write("a.txt", Array("a".utf8))
        try Self.setRating(f, "/dav/a.txt", "five")
        #expect(try Curl.run(["-T", "-", f.url("/dav/a.txt")], stdin: Data("a2".utf8)).status == 204)
        #expect(try Self.rating(f, "/dav/a.txt") == "five", "a PUT replacing the file keeps its properties")
        #expect(try Curl.run(["-X", "MOVE", "-H", "Destination: /dav/b.txt", f.url("/dav/a.txt")]).status == 201)
        #expect(try Self.rating(f, "/dav/b.txt") == "five")
        try f.write("a.txt", Array("new".utf8))
        #expect(try Self.rating(f, "/dav/a.txt") == nil)
        #expect(try Curl.run(["-X", "DELETE", f.url("/dav/b.txt")]).status == 204)
        try f.write("b.txt", Array("again".utf8))
        #expect(try Self.rating(f, "/dav/b.txt") == nil, "a deleted file's properties never come back")
        #expect(try Self.hidden(f, ".skylift-props").isEmpty)
        #expect(try Self.hidden(f, ".skylift-trash").isEmpty)
    }

    /// A MOVE onto an existing folder replaces it whole; its members' properties come along.
    @Test func aMoveOntoAFolderReplacesItWhole() throws {
        let f = try ServerFixture()
        try f.write("src/x.txt", Array("new".utf8))
        try f.write("dst/old.txt", Array("old".utf8))
        try Self.setRating(f, "/dav/src/x.txt", "gold")
        #expect(try Curl.run(["-X", "MOVE", "-H", "Destination: /dav/dst/", f.url("/dav/src/")]).status == 204)
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.file("dst").path) == ["x.txt"])
        #expect(try Self.rating(f, "/dav/dst/x.txt") == "gold")
        #expect(!FileManager.default.fileExists(atPath: f.file("src").path))
        #expect(try Self.hidden(f, ".skylift-move").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.file(".skylift-journal").path).isEmpty)
        // A file onto a folder, and a folder onto a file, the same way.
        try f.write("file.txt", Array("f".utf8))
        #expect(try Curl.run(["-X", "MOVE", "-H", "Destination: /dav/dst", f.url("/dav/file.txt")]).status == 204)
        #expect(try String(contentsOf: f.file("dst"), encoding: .utf8) == "f")
        try f.write("dir/y.txt", Array("y".utf8))
        #expect(try Curl.run(["-X", "MOVE", "-H", "Destination: /dav/dst", f.url("/dav/dir/")]).status == 204)
        #expect(try String(contentsOf: f.file("dst/y.txt"), encoding: .utf8) == "y")
    }

    /// The two states a crash can leave a journalled MOVE in, each finished at the next start: the moved tree
    /// under its temporary name (put in place), and the old destination under it (removed).
    @Test func aMoveCutShortIsFinishedAtStart() throws {
        let f = try ServerFixture()
        f.stop()
        try f.write("dst/old.txt", Array("old".utf8))
        let temp = ".skylift-move-runcrashed-1"
        try f.write("\(temp)/x.txt", Array("moved".utf8))
        let inode = try FileStatus(f.file(temp).path).inode
        let journal = MoveJournal(rootPath: try #require(FileSystem.realPath(f.root.path)))
        _ = try journal.begin(.init(folder: [], temporary: temp, destination: "dst", inode: inode))
        try f.start()
        #expect(try String(contentsOf: f.file("dst/x.txt"), encoding: .utf8) == "moved")
        #expect(!FileManager.default.fileExists(atPath: f.file(temp).path))

        f.stop()
        // After the exchange: the old destination sits under the temporary name.
        try f.write("\(temp)/stale.txt", Array("old".utf8))
        _ = try journal.begin(.init(folder: [], temporary: temp, destination: "dst", inode: inode &+ 1))
        try f.start()
        #expect(!FileManager.default.fileExists(atPath: f.file(temp).path))
        #expect(try String(contentsOf: f.file("dst/x.txt"), encoding: .utf8) == "moved")
        #expect(try FileManager.default.contentsOfDirectory(atPath: journal.directory).isEmpty)
    }

    /// Stores from before kept properties in sidecar files: at start they move onto their files, and a sidecar
    /// whose file is gone is dropped instead of waiting for the next file of that name.
    @Test func sidecarPropertiesMoveOntoTheirFilesAtStart() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-storage-\(UUID().uuidString)")
        let entry = #"[{"property":{"namespace":"urn:skylift:test","name":"rating"},"xml":"<Q:rating xmlns:Q=\"urn:skylift:test\">old</Q:rating>"}]"#
        for (path, text) in [("d/a.txt", "a"), ("d/.skylift-props.a.txt", entry), ("d/.skylift-props.gone.txt", entry),
                             (".skylift-props.d", entry)] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let f = try ServerFixture(root: root)
        #expect(try Self.rating(f, "/dav/d/a.txt") == "old")
        #expect(try Self.rating(f, "/dav/d/") == "old")
        #expect(try Self.hidden(f, ".skylift-props", in: "d").isEmpty)
        #expect(try Self.hidden(f, ".skylift-props").isEmpty)
        try f.write("d/gone.txt", Array("new".utf8))
        #expect(try Self.rating(f, "/dav/d/gone.txt") == nil)
    }

    /// What a killed COPY or DELETE leaves under hidden names (a partial copy, a replaced or deleted tree) is
    /// removed by the start-up sweep.
    @Test func copiesAndDeletionsCutShortAreSweptAtStart() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-storage-\(UUID().uuidString)")
        let old = Date(timeIntervalSinceNow: -60)
        let leftovers = ["d/.skylift-copy-runold-1/a/b.txt", "d/.skylift-trash-runold-2/c.txt", "d/.skylift-copy-runold-3"]
        for path in leftovers + ["d/keep.txt"] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: url)
        }
        for top in ["d/.skylift-copy-runold-1", "d/.skylift-trash-runold-2", "d/.skylift-copy-runold-3"] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: root.appendingPathComponent(top).path)
        }
        let f = try ServerFixture(root: root)
        for _ in 0..<100 where try Self.hidden(f, ".skylift-", in: "d").count > 0 { Thread.sleep(forTimeInterval: 0.05) }
        #expect(try Self.hidden(f, ".skylift-", in: "d").isEmpty)
        #expect(FileManager.default.fileExists(atPath: f.file("d/keep.txt").path))
    }

    /// Times beyond what an Int64 of nanoseconds holds keep their seconds: two far-future times are two
    /// ETags, and a digest recorded for one does not pass for the other.
    @Test func farTimesStayDistinct() throws {
        let f = try ServerFixture()
        try f.write("far.txt", Array("one".utf8))
        let path = f.file("far.txt").path
        // Past 2262, within what ext4 keeps (to 2446): the test's root may be on either.
        func setYear(_ seconds: Int) {
            var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        }
        setYear(10_000_000_000)
        let first = try Curl.run(["-I", f.url("/dav/far.txt")])
        setYear(10_000_000_001)
        let second = try Curl.run(["-I", f.url("/dav/far.txt")])
        #expect(first.header("ETag") != nil && first.header("ETag") != second.header("ETag"))
        // Last-Modified is never later than the response's Date (RFC 9110 §8.8.2.1).
        let date = try #require(second.header("Date").flatMap(HTTPDate.parse))
        let modified = try #require(second.header("Last-Modified").flatMap(HTTPDate.parse))
        #expect(modified <= date)
        let a = FileTime(seconds: 40_000_000_000, nanoseconds: 5), b = FileTime(seconds: 40_000_000_001, nanoseconds: 5)
        let record = DigestRecord(sha256: [UInt8](repeating: 1, count: 32), sha1: nil, md5: nil, size: 3, mtime: a, inode: 7)
        #expect(DigestRecord(encoded: record.encoded) == record)
        #expect(record.mtime != b)
        let early = FileTime(seconds: -20_000_000_000, nanoseconds: 999_999_999)
        #expect(DigestRecord(encoded: DigestRecord(sha256: record.sha256, sha1: nil, md5: nil, size: 1, mtime: early, inode: 1).encoded)?.mtime == early)
    }
}

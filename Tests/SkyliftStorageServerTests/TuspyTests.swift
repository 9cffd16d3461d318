import Foundation
import Testing
import TestPrograms

/// tuspy (PyPI), a tus client no one here wrote, against the server.
@Suite struct TuspyTests {
    static let script = """
    import sys
    from tusclient import client
    base, token, path, name, mode = sys.argv[1:6]
    c = client.TusClient(base + "/dav/inbox/", headers={"Authorization": "Bearer " + token})
    if mode == "full":
        u = c.uploader(path, chunk_size=65536, metadata={"filename": name, "relativePath": "py"}, upload_checksum=True)
        u.upload()
    elif mode == "first-chunk":
        u = c.uploader(path, chunk_size=65536, metadata={"filename": name})
        u.upload_chunk()
    else:
        u = c.uploader(path, chunk_size=65536, url=base + mode, metadata={"filename": name})
        u.upload()
    print(u.url)
    """

    /// Runs the script; its last output line is the upload URL.
    static func run(_ args: [String]) throws -> (out: String, status: Int32) {
        let r = try runTool(TestPrograms.python("tusclient"), ["-c", script] + args)
        if r.status != 0 { Issue.record("tuspy failed: \(r.out)") }
        return (r.out.trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: "\n").last ?? "", r.status)
    }

    @Test func tuspyUploadsWithChecksums() throws {
        let f = try ServerFixture()
        let data = randomBytes(300_000)
        let src = try tempFile(data)
        defer { try? FileManager.default.removeItem(at: src) }
        let r = try Self.run([f.base, ServerFixture.token, src.path, "from-tuspy.bin", "full"])
        #expect(r.status == 0)
        #expect(try Array(Data(contentsOf: f.file("inbox/py/from-tuspy.bin"))) == data)
    }

    @Test func tuspyResumesAfterRestart() throws {
        let f = try ServerFixture()
        let data = randomBytes(200_000)
        let src = try tempFile(data)
        defer { try? FileManager.default.removeItem(at: src) }
        let first = try Self.run([f.base, ServerFixture.token, src.path, "resumed.bin", "first-chunk"])
        #expect(first.status == 0)
        let location = try #require(first.out.range(of: "/uploads/").map { String(first.out[$0.lowerBound...]) })
        #expect(!FileManager.default.fileExists(atPath: f.file("inbox/resumed.bin").path))
        f.stop()
        try f.start() // a new port: tuspy is pointed at the same upload path on it
        #expect(try TusTests.offset(f, location) == 65536)
        let second = try Self.run([f.base, ServerFixture.token, src.path, "resumed.bin", location])
        #expect(second.status == 0)
        #expect(try Array(Data(contentsOf: f.file("inbox/resumed.bin"))) == data)
    }
}

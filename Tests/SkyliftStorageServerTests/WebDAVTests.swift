import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestProbes
import TestPrograms

@Suite struct WebDAVTests {
    static let xml = ["-H", "Content-Type: application/xml"]

    static func propfind(_ f: ServerFixture, _ path: String, depth: String, body: String? = nil) throws -> CurlResult {
        try Curl.run(["-X", "PROPFIND", "-H", "Depth: \(depth)"] + xml + (body.map { ["--data-binary", $0] } ?? []) + [f.url(path)])
    }

    @Test func putMkcolDeleteStatuses() throws {
        let f = try ServerFixture()
        let body = try tempFile(randomBytes(70_000))
        defer { try? FileManager.default.removeItem(at: body) }
        #expect(try Curl.run(["-T", body.path, f.url("/dav/a.bin")]).status == 201)
        #expect(try Curl.run(["-T", body.path, f.url("/dav/a.bin")]).status == 204)
        #expect(try Curl.run(["-T", body.path, f.url("/dav/missing/a.bin")]).status == 409)
        #expect(try Curl.run(["-T", body.path, "-H", "Content-Range: bytes 0-9/100", f.url("/dav/a.bin")]).status == 400)
        #expect(try Curl.run(["-X", "MKCOL", f.url("/dav/dir")]).status == 201)
        #expect(try Curl.run(["-X", "MKCOL", f.url("/dav/dir")]).status == 405)
        #expect(try Curl.run(["-X", "MKCOL", f.url("/dav/no/dir")]).status == 409)
        #expect(try Curl.run(["-X", "MKCOL", "--data-binary", "x", f.url("/dav/dir2")]).status == 415)
        #expect(try Curl.run(["-T", body.path, f.url("/dav/dir")]).status == 405)
        #expect(try Curl.run(["-T", body.path, f.url("/dav/dir/inner.bin")]).status == 201)
        #expect(try Curl.run(["-T", body.path, "-H", "If-None-Match: *", f.url("/dav/dir/inner.bin")]).status == 412)
        #expect(try Curl.run(["-X", "DELETE", f.url("/dav/dir")]).status == 204)
        #expect(!FileManager.default.fileExists(atPath: f.file("dir").path))
        #expect(try Curl.run(["-X", "DELETE", f.url("/dav/dir")]).status == 404)
        #expect(try Curl.run(["-X", "DELETE", f.url("/dav/")]).status == 403)
        #expect(try Curl.run(["-X", "BREW", f.url("/dav/a.bin")]).status == 405)
    }

    @Test func propfindDepthsAndMalformedXML() throws {
        let f = try ServerFixture()
        try f.write("d/x.txt", Array("12345".utf8))
        try f.write("d/sub/y.txt", [1])
        let infinity = try Self.propfind(f, "/dav/d/", depth: "infinity")
        #expect(infinity.status == 403 && infinity.text.contains("propfind-finite-depth"))
        #expect(try Curl.run(["-X", "PROPFIND", f.url("/dav/d/")]).status == 403) // no Depth means infinity
        let one = try Self.propfind(f, "/dav/d/", depth: "1")
        #expect(one.status == 207)
        #expect(one.text.contains("<D:href>/dav/d/x.txt</D:href>") && one.text.contains("<D:href>/dav/d/sub/</D:href>"))
        #expect(!one.text.contains("y.txt"))
        #expect(one.text.contains("<D:getcontentlength>5</D:getcontentlength>"))
        let zero = try Self.propfind(f, "/dav/d/", depth: "0")
        #expect(zero.status == 207 && !zero.text.contains("x.txt") && zero.text.contains("<D:collection"))
        #expect(try Self.propfind(f, "/dav/d/", depth: "1", body: "<propfind xmlns='DAV:'><prop>").status == 400)
        #expect(try Self.propfind(f, "/dav/nope", depth: "0").status == 404)
        #expect(try Curl.run(["-X", "PROPPATCH", "--data-binary", "<a><b></a>", f.url("/dav/d/x.txt")]).status == 400)
        #expect(try Curl.run(["-X", "LOCK", "--data-binary", "not xml", f.url("/dav/d/x.txt")]).status == 400)
        // An in-flight PUT's temp file is never listed.
        try f.write("d/.skylift-put-123", [1])
        #expect(!(try Self.propfind(f, "/dav/d/", depth: "1")).text.contains("skylift"))
    }

    @Test func deadPropertiesPersistAndFollowCopyAndMove() throws {
        let f = try ServerFixture()
        try f.write("p/file.txt", Array("x".utf8))
        let set = """
        <?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:skylift:test">
        <D:set><D:prop><Z:rating>5 &amp; <Z:em>gold</Z:em></Z:rating></D:prop></D:set></D:propertyupdate>
        """
        let r = try Curl.run(["-X", "PROPPATCH"] + Self.xml + ["--data-binary", set, f.url("/dav/p/file.txt")])
        #expect(r.status == 207 && r.text.contains("200 OK"))
        let ask = "<?xml version='1.0'?><D:propfind xmlns:D='DAV:'><D:prop><Q:rating xmlns:Q='urn:skylift:test'/></D:prop></D:propfind>"
        func rating(_ path: String) throws -> String {
            try Self.propfind(f, path, depth: "0", body: ask).text
        }
        #expect(try rating("/dav/p/file.txt").contains("gold"))
        f.stop()
        try f.start()
        #expect(try rating("/dav/p/file.txt").contains("gold"))
        #expect(try Curl.run(["-X", "COPY", "-H", "Destination: \(f.url("/dav/p/copy.txt"))", f.url("/dav/p/file.txt")]).status == 201)
        #expect(try rating("/dav/p/copy.txt").contains("gold"))
        #expect(try Curl.run(["-X", "MOVE", "-H", "Destination: /dav/moved", f.url("/dav/p")]).status == 201)
        #expect(try rating("/dav/moved/file.txt").contains("gold"))
        #expect(try rating("/dav/moved/copy.txt").contains("gold"))
        let protected = "<D:propertyupdate xmlns:D='DAV:'><D:set><D:prop><D:getetag>x</D:getetag></D:prop></D:set></D:propertyupdate>"
        let p = try Curl.run(["-X", "PROPPATCH"] + Self.xml + ["--data-binary", protected, f.url("/dav/moved/file.txt")])
        #expect(p.status == 207 && p.text.contains("403"))
    }

    @Test func copyMoveOverwriteAndDepth() throws {
        let f = try ServerFixture()
        try f.write("src/a.txt", Array("A".utf8))
        try f.write("src/deep/b.txt", Array("B".utf8))
        try f.write("other.txt", Array("O".utf8))
        let dest = { (p: String) in ["-H", "Destination: \(f.url(p))"] }
        #expect(try Curl.run(["-X", "COPY"] + dest("/dav/src2") + [f.url("/dav/src")]).status == 201)
        #expect(try String(contentsOf: f.file("src2/deep/b.txt"), encoding: .utf8) == "B")
        #expect(try Curl.run(["-X", "COPY", "-H", "Depth: 0"] + dest("/dav/shallow") + [f.url("/dav/src")]).status == 201)
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.file("shallow").path).isEmpty)
        #expect(try Curl.run(["-X", "COPY", "-H", "Overwrite: F"] + dest("/dav/src2/a.txt") + [f.url("/dav/other.txt")]).status == 412)
        #expect(try Curl.run(["-X", "COPY"] + dest("/dav/src2/a.txt") + [f.url("/dav/other.txt")]).status == 204)
        #expect(try String(contentsOf: f.file("src2/a.txt"), encoding: .utf8) == "O")
        #expect(try Curl.run(["-X", "MOVE"] + dest("/dav/nowhere/x") + [f.url("/dav/other.txt")]).status == 409)
        #expect(try Curl.run(["-X", "MOVE"] + dest("/dav/src/inside") + [f.url("/dav/src")]).status == 403)
        #expect(try Curl.run(["-X", "MOVE"] + dest("/dav/../escape") + [f.url("/dav/other.txt")]).status == 403)
        #expect(try Curl.run(["-X", "MOVE"] + dest("/elsewhere/x") + [f.url("/dav/other.txt")]).status == 502)
        #expect(try Curl.run(["-X", "MOVE", f.url("/dav/other.txt")]).status == 400)
        #expect(try Curl.run(["-X", "MOVE"] + dest("/dav/renamed.txt") + [f.url("/dav/other.txt")]).status == 201)
        #expect(!FileManager.default.fileExists(atPath: f.file("other.txt").path))
        #expect(try Curl.run(["-X", "MOVE"] + dest("/dav/x") + [f.url("/dav/missing")]).status == 404)
    }

    @Test func locksGuardWritesUntilTokenIsSubmitted() throws {
        let f = try ServerFixture()
        try f.write("l/doc.txt", Array("v1".utf8))
        let info = "<?xml version='1.0'?><D:lockinfo xmlns:D='DAV:'><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>me</D:owner></D:lockinfo>"
        let lock = try Curl.run(["-X", "LOCK"] + Self.xml + ["-H", "Timeout: Second-600", "--data-binary", info, f.url("/dav/l/doc.txt")])
        #expect(lock.status == 200)
        let tokenHeader = try #require(lock.header("Lock-Token"))
        let token = String(tokenHeader.dropFirst().dropLast())
        #expect(lock.text.contains(token) && lock.text.contains("Second-600"))
        let body = try tempFile(Array("v2".utf8))
        defer { try? FileManager.default.removeItem(at: body) }
        #expect(try Curl.run(["-T", body.path, f.url("/dav/l/doc.txt")]).status == 423)
        #expect(try Curl.run(["-X", "DELETE", f.url("/dav/l/doc.txt")]).status == 423)
        #expect(try Curl.run(["-X", "DELETE", f.url("/dav/l")]).status == 423)
        #expect(try Curl.run(["-X", "MOVE", "-H", "Destination: /dav/z.txt", f.url("/dav/l/doc.txt")]).status == 423)
        #expect(try Curl.run(["-X", "LOCK"] + Self.xml + ["--data-binary", info, f.url("/dav/l/doc.txt")]).status == 423)
        #expect(try Curl.run(["-T", body.path, "-H", "If: (<opaquelocktoken:wrong>)", f.url("/dav/l/doc.txt")]).status == 412)
        #expect(try Curl.run(["-T", body.path, "-H", "If: (<\(token)>)", f.url("/dav/l/doc.txt")]).status == 204)
        #expect(try String(contentsOf: f.file("l/doc.txt"), encoding: .utf8) == "v2")
        #expect(try Curl.run(["-X", "UNLOCK", "-H", "Lock-Token: <opaquelocktoken:nope>", f.url("/dav/l/doc.txt")]).status == 409)
        #expect(try Curl.run(["-X", "UNLOCK", "-H", "Lock-Token: \(tokenHeader)", f.url("/dav/l/doc.txt")]).status == 204)
        #expect(try Curl.run(["-T", body.path, f.url("/dav/l/doc.txt")]).status == 204)
        // Locking an unmapped URL creates an empty resource.
        let fresh = try Curl.run(["-X", "LOCK"] + Self.xml + ["--data-binary", info, f.url("/dav/l/new.txt")])
        #expect(fresh.status == 201)
        #expect(FileManager.default.fileExists(atPath: f.file("l/new.txt").path))
    }

    @Test func concurrentPutsOfOnePathLeaveOneWholeBody() async throws {
        let f = try ServerFixture()
        let bodies = (0..<6).map { i in [UInt8](repeating: UInt8(65 + i), count: 3_000_000) }
        let url = URL(string: f.url("/dav/race.bin"))!
        try await withThrowingTaskGroup(of: Int.self) { group in
            for body in bodies {
                group.addTask {
                    var request = URLRequest(url: url)
                    request.httpMethod = "PUT"
                    request.setValue("Bearer \(ServerFixture.token)", forHTTPHeaderField: "Authorization")
                    let (_, response) = try await URLSession.shared.upload(for: request, from: Data(body))
                    return (response as? HTTPURLResponse)?.statusCode ?? 0
                }
            }
            for try await status in group { #expect([201, 204].contains(status)) }
        }
        let stored = try Array(Data(contentsOf: f.file("race.bin")))
        #expect(bodies.contains(stored))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: f.root.path).filter { $0.hasPrefix(".skylift-put") }
        #expect(leftovers.isEmpty)
    }

    @Test func interruptedPutLeavesNothingAtTheFinalPath() throws {
        let f = try ServerFixture()
        // A raw client promises 10 MB, sends 200 KB and hangs up.
        let port = URL(string: f.base)!.port!
        let script = """
        import socket, sys
        s = socket.create_connection(("127.0.0.1", \(port)))
        s.sendall(b"PUT /dav/partial.bin HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Bearer \(ServerFixture.token)\\r\\nContent-Length: 10000000\\r\\n\\r\\n")
        s.sendall(b"x" * 200000)
        s.close()
        """
        let p = Process()
        p.executableURL = try TestPrograms.python()
        p.arguments = ["-c", script]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        for _ in 0..<100 where f.log.all.isEmpty { Thread.sleep(forTimeInterval: 0.05) }
        for _ in 0..<100 where (try? FileManager.default.contentsOfDirectory(atPath: f.root.path).contains { $0.hasPrefix(".skylift-put") }) == true {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(!FileManager.default.fileExists(atPath: f.file("partial.bin").path), "\(f.log.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.root.path).filter { $0.hasPrefix(".skylift-put") }.isEmpty)
    }

    @Test func tempFilesLeftByAKilledServerAreSweptOnStart() throws {
        // The leftovers are in place before any server starts on the root: a server started and stopped first
        // left its own sweep running, which could remove a file just written (coarse clock) before it was aged.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-storage-\(UUID().uuidString)")
        let old = Date(timeIntervalSinceNow: -60)
        for (p, bytes) in [("a/b/.skylift-put-0123", [1, 2, 3]), ("a/.skylift-tmp-4567", [1]), ("a/keep.txt", [1])] as [(String, [UInt8])] {
            let url = root.appendingPathComponent(p)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
            if p != "a/keep.txt" { try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: url.path) }
        }
        let f = try ServerFixture(root: root)
        let stale = ["a/b/.skylift-put-0123", "a/.skylift-tmp-4567"].map { f.file($0).path }
        for _ in 0..<100 where stale.contains(where: FileManager.default.fileExists) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(!FileManager.default.fileExists(atPath: f.file("a/b/.skylift-put-0123").path))
        #expect(!FileManager.default.fileExists(atPath: f.file("a/.skylift-tmp-4567").path))
        #expect(FileManager.default.fileExists(atPath: f.file("a/keep.txt").path))
    }

    /// A PUT that began just after start has a temp file whose time (the kernel's coarse clock) can read before the
    /// start; a sweep that got there late removed it mid-write and the PUT failed with 500. Here the in-flight temp
    /// file is aged on purpose, and a second server on the same root (same process) runs its start-up sweep.
    @Test func startUpSweepLeavesThisProcessesPutInFlightAlone() throws {
        let f = try ServerFixture()
        let port = try #require(URL(string: f.base)?.port.flatMap { UInt16(exactly: $0) })
        try FileManager.default.createDirectory(at: f.file("a"), withIntermediateDirectories: true)
        let c = try RawConnection(port: port)
        try c.send("PUT /dav/a/new.txt HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(ServerFixture.token)\r\nContent-Length: 5\r\n\r\n")
        let inFlight = { try FileManager.default.contentsOfDirectory(atPath: f.file("a").path).filter { $0.hasPrefix(".skylift-put-") } }
        for _ in 0..<100 where try inFlight().isEmpty { Thread.sleep(forTimeInterval: 0.05) }
        let temp = try #require(try inFlight().first)
        let old = Date(timeIntervalSinceNow: -60)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: f.file("a/" + temp).path)
        // A leftover of a killed run beside it: once it is gone, the second server's sweep has listed the folder.
        try f.write("a/.skylift-put-0123", [1])
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: f.file("a/.skylift-put-0123").path)
        let second = try ServerFixture(root: f.root)
        for _ in 0..<100 where FileManager.default.fileExists(atPath: f.file("a/.skylift-put-0123").path) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(!FileManager.default.fileExists(atPath: f.file("a/.skylift-put-0123").path))
        Thread.sleep(forTimeInterval: 0.2) // the sweep handles the rest of that folder's listing
        try c.send("", body: Array("hello".utf8))
        let put = try c.response()
        #expect(put.status == 201, "\(put.text)")
        #expect(try Data(contentsOf: f.file("a/new.txt")) == Data("hello".utf8))
        second.stop()
    }
}

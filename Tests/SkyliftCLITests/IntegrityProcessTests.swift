import Foundation
import TestProbes
import Testing
import TestPrograms

/// Digests end to end with the built binary: `upload --verify` against `serve` (no body read back),
/// `scrub` finding a flipped byte and unrecorded files, `status` showing the last scrub.
@Suite(.serialized) struct IntegrityProcessTests {
    /// `skylift ARGS` run to the end: exit status, stdout, stderr.
    static func skylift(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        (p.executableURL, p.arguments) = try skyliftInvocation(arguments)
        p.environment = ["PATH": "/usr/bin:/bin"]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// A served temp root with the access log on (stderr), and a scratch folder beside it.
    final class LoggedCloud {
        static let token = "integrity-token-1"
        let scratch: TempFolder
        var dir: URL { scratch.url }
        var root: URL { dir.appendingPathComponent("root") }
        var serve: ServeProcess?
        var url = ""

        init() throws {
            scratch = try TempFolder("integrity")
            try scratch.folder("root")
            try start()
        }

        func start() throws {
            let s = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--token", Self.token], environment: ["PATH": "/usr/bin:/bin"])
            url = s.lines(3).first { $0.hasPrefix("  url:") }?.replacingOccurrences(of: "  url:   ", with: "") ?? ""
            serve = s
        }

        /// Stops the server and returns its access log.
        func stop() -> [String] {
            guard let s = serve else { return [] }
            _ = s.terminate()
            serve = nil
            return String(decoding: s.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .split(separator: "\n").map(String.init)
        }

        func put(_ name: String, _ bytes: [UInt8]) throws {
            let body = dir.appendingPathComponent("body-\(UUID().uuidString)")
            try Data(bytes).write(to: body)
            defer { try? FileManager.default.removeItem(at: body) }
            let status = try curlStatus(["-X", "PUT", "-H", "Authorization: Bearer \(Self.token)", "--data-binary", "@" + body.path, url + name])
            #expect(status == "201", "PUT \(name): \(status)")
        }

        deinit { _ = stop() }
    }

    @Test func verifyUsesTheServedDigestAndReadsNothingBack() throws {
        let cloud = try LoggedCloud()
        let source = cloud.dir.appendingPathComponent("clip.bin")
        try Data((0 ..< 3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: source)
        let upload = try TransferProcess(["upload", source.path, "--to", cloud.url + "clips/", "--token", LoggedCloud.token,
                                          "--state", cloud.dir.appendingPathComponent("state").path, "--json", "--verify"])
        let (events, status) = upload.finish()
        #expect(status == 0, Comment(rawValue: upload.errorText))
        let done = try #require(events.first { $0["event"] as? String == "done" })
        #expect(done["verified"] as? Bool == true)
        let log = cloud.stop()
        // The access log names every request: the verify step asked for the digest (HEAD), not the body (GET).
        #expect(log.contains { $0.hasPrefix("HEAD /dav/clips/clip.bin ") }, Comment(rawValue: log.joined(separator: "\n")))
        #expect(!log.contains { $0.hasPrefix("GET ") }, Comment(rawValue: log.joined(separator: "\n")))
        #expect(FileManager.default.contentsEqual(atPath: source.path, andPath: cloud.root.appendingPathComponent("clips/clip.bin").path))
    }

    /// Flips one byte of `file` in place and puts its times back to the nanosecond, as rot would leave it.
    static func flipByteKeepingTimes(_ file: URL, at offset: Int64) throws {
        let fd = open(file.path, O_RDWR)
        try #require(fd >= 0)
        defer { close(fd) }
        var st = stat()
        try #require(fstat(fd, &st) == 0)
        var byte: UInt8 = 0
        try #require(pread(fd, &byte, 1, off_t(offset)) == 1)
        byte ^= 0x20
        try #require(pwrite(fd, &byte, 1, off_t(offset)) == 1)
        var times = [st.st_atim, st.st_mtim]
        try #require(futimens(fd, &times) == 0)
    }

    @Test func scrubReportsAFlippedByteAndUnrecordedFilesAndStatusShowsIt() throws {
        let cloud = try LoggedCloud()
        try cloud.put("a.bin", (0 ..< 200_000).map { UInt8(truncatingIfNeeded: $0) })
        try FileManager.default.createDirectory(at: cloud.root.appendingPathComponent("dir"), withIntermediateDirectories: true)
        try cloud.put("dir/b.bin", Array("intact".utf8))
        _ = cloud.stop()
        try Self.flipByteKeepingTimes(cloud.root.appendingPathComponent("a.bin"), at: 123_456)
        try Data("put here by hand".utf8).write(to: cloud.root.appendingPathComponent("dir/c.txt"))

        let never = try Self.skylift(["status", "--root", cloud.root.path])
        #expect(never.status == 0 && never.out.contains("never scrubbed"), Comment(rawValue: never.out))

        let first = try Self.skylift(["scrub", "--root", cloud.root.path, "--json", "--rate", "50M"])
        #expect(first.status == 1, Comment(rawValue: first.out + first.err))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(first.out.utf8)) as? [String: Any])
        let findings = try #require(report["findings"] as? [[String: Any]])
        #expect(findings.count == 2, Comment(rawValue: first.out))
        #expect(findings.contains { $0["path"] as? String == "a.bin" && $0["kind"] as? String == "mismatch" })
        #expect(findings.contains { $0["path"] as? String == "dir/c.txt" && $0["kind"] as? String == "unrecorded" })
        #expect(report["matched"] as? Int == 1 && report["files"] as? Int == 3 && report["recorded"] as? Int == 1)

        // The unrecorded file was recorded: the second run checks it and finds only the flipped byte.
        let second = try Self.skylift(["scrub", "--root", cloud.root.path, "--no-record"])
        #expect(second.status == 1)
        #expect(second.out.contains("3 files") && second.out.contains("2 ok, 1 mismatched, 0 unrecorded"), Comment(rawValue: second.out))
        #expect(second.out.contains("  mismatch: a.bin ("), Comment(rawValue: second.out))

        let status = try Self.skylift(["status", "--root", cloud.root.path])
        #expect(status.status == 0)
        #expect(status.out.contains("last scrub ") && status.out.contains("1 mismatched") && status.out.contains("  mismatch: a.bin"),
                Comment(rawValue: status.out))

        // The server serves what scrub recorded.
        try cloud.start()
        let curl = Process()
        curl.executableURL = try TestPrograms.path("curl")
        curl.arguments = ["-sI", "-H", "Authorization: Bearer \(LoggedCloud.token)", cloud.url + "dir/c.txt"]
        let out = Pipe()
        curl.standardOutput = out
        try curl.run()
        let head = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).lowercased()
        curl.waitUntilExit()
        #expect(head.contains("repr-digest: sha-256=:"), Comment(rawValue: head))
    }

    @Test func scrubRefusesBadInput() throws {
        let missing = try Self.skylift(["scrub", "--root", "/nonexistent/\(UUID().uuidString)"])
        #expect(missing.status == 1 && missing.err.contains("is not a directory"))
        let rate = try Self.skylift(["scrub", "--rate", "fast"])
        #expect(rate.status == 2 && rate.err.contains("--rate"))
        let digests = try Self.skylift(["scrub", "--digests", "sha256,crc32"])
        #expect(digests.status == 2 && digests.err.contains("crc32"))
    }
}

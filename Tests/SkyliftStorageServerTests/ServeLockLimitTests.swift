import TestPrograms
import Foundation
import TestProbes
import Testing

/// Bounds on WebDAV locks in the real `skylift serve` process: the owner's size, the lifetime, locks per
/// resource and in all. Past a bound the answer is a clear refusal and the process lives on.
@Suite struct ServeLockLimitTests {
    static func lockinfo(scope: String = "shared", owner: String = "me") -> String {
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:\(scope)/></D:lockscope>"
            + "<D:locktype><D:write/></D:locktype><D:owner>\(owner)</D:owner></D:lockinfo>"
    }

    @Test func ownerSizeBodySizeAndTimeoutAreCapped() throws {
        let served = try ServedRoot()
        try Data("x".utf8).write(to: served.root.appendingPathComponent("doc.txt"))
        let big = try served.send("LOCK", "doc.txt", xml: Self.lockinfo(owner: String(repeating: "<D:href>o</D:href>", count: 300)))
        #expect(big.status == 413 && big.body.contains("at most 4096"), "\(big.status) \(big.body)")
        let huge = try served.send("LOCK", "doc.txt", xml: Self.lockinfo(owner: String(repeating: "m", count: 1 << 20)))
        #expect(huge.status == 413 && huge.body.contains("larger than"), "\(huge.status) \(huge.body)")
        for timeout in ["Second-999999999", "Infinite", "Infinite, Second-4100000000"] {
            let lock = try served.send("LOCK", "doc.txt", xml: Self.lockinfo(), headers: ["Timeout": timeout])
            #expect(lock.status == 200 && lock.body.contains("Second-3600"), "\(timeout): \(lock.body)")
        }
        let short = try served.send("LOCK", "doc.txt", xml: Self.lockinfo(), headers: ["Timeout": "Second-60"])
        #expect(short.body.contains("Second-60<"))
        #expect(served.isAnswering)
    }

    @Test func locksPerResourceAndInAllAreCapped() throws {
        let served = try ServedRoot()
        try Data("x".utf8).write(to: served.root.appendingPathComponent("doc.txt"))
        try FileManager.default.createDirectory(at: served.root.appendingPathComponent("many"), withIntermediateDirectories: true)
        var tokens: [String] = []
        for _ in 0..<32 {
            let lock = try served.send("LOCK", "doc.txt", xml: Self.lockinfo())
            #expect(lock.status == 200)
            tokens.append(lock.headers["lock-token"] ?? "")
        }
        let refused = try served.send("LOCK", "doc.txt", xml: Self.lockinfo())
        #expect(refused.status == 503 && refused.body.contains("32 locks on /doc.txt"), "\(refused.status) \(refused.body)")
        let retry = Int(refused.headers["retry-after"] ?? "") ?? 0
        #expect((1...3600).contains(retry), "Retry-After: \(retry)")

        // Fill the table to 1024 with exclusive locks on new names below /many/ (one curl, one connection).
        let statuses = try lockMany(served, names: (0..<(1024 - 32)).map { "many/f\($0)" })
        #expect(statuses.allSatisfy { $0 == "201" }, "\(Set(statuses))")
        let full = try served.send("LOCK", "many/one-more", xml: Self.lockinfo(scope: "exclusive"))
        #expect(full.status == 503 && full.body.contains("1024 locks on this server"), "\(full.status) \(full.body)")
        #expect(served.isAnswering)
        // Unlocking makes room again.
        #expect(try served.send("UNLOCK", "doc.txt", headers: ["Lock-Token": tokens[0]]).status == 204)
        #expect(try served.send("LOCK", "many/one-more", xml: Self.lockinfo(scope: "exclusive")).status == 201)
    }

    /// LOCKs every name in one curl run; the statuses in order.
    func lockMany(_ served: ServedRoot, names: [String]) throws -> [String] {
        let dir = FileManager.default.temporaryDirectory
        let body = dir.appendingPathComponent("lock-body-\(UUID().uuidString)")
        let config = dir.appendingPathComponent("lock-config-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: body)
            try? FileManager.default.removeItem(at: config)
        }
        try Data(Self.lockinfo(scope: "exclusive").utf8).write(to: body)
        let groups = names.map { name in
            """
            url = "\(served.url)\(name)"
            request = "LOCK"
            header = "Authorization: Bearer \(ServedRoot.token)"
            data-binary = "@\(body.path)"
            silent
            output = "/dev/null"
            write-out = "%{http_code}\\n"
            """
        }
        try Data(groups.joined(separator: "\nnext\n").utf8).write(to: config)
        let p = Process()
        p.executableURL = try TestPrograms.path("curl")
        p.arguments = ["-K", config.path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text.split(separator: "\n").map(String.init)
    }
}

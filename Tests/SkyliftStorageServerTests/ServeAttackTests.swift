import Foundation
import TestProbes
import Testing

/// `skylift serve` attacked by a web page (DNS rebinding), a local user reading argv, and a client sending
/// control bytes (issue 10, items 4 and 6).
@Suite struct ServeAttackTests {
    /// A fresh root holding `a.txt`.
    func root() throws -> TempFolder {
        let root = try TempFolder("serve-attack")
        try Data("served".utf8).write(to: root.appending("a.txt"))
        return root
    }

    func url(_ serve: ServeProcess) throws -> String {
        try #require(serve.lines(3).first { $0.hasPrefix("  url:") }).replacingOccurrences(of: "  url:   ", with: "")
    }

    @Test func noAuthServeAnswersOnlyLoopbackAndListedHosts() throws {
        let scratch = try root(), root = scratch.url
        let serve = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--no-auth", "--allow-host", "phone.lan"],
                                     environment: ["PATH": "/usr/bin:/bin"])
        let dav = try url(serve)
        let evil = ["-H", "Host: evil.example"]
        #expect(try curlStatus(evil + [dav + "a.txt"]) == "421")
        #expect(try curlStatus(evil + ["-X", "PUT", "--data-binary", "planted", dav + "planted.txt"]) == "421")
        #expect(try curlStatus(evil + ["-X", "DELETE", dav + "a.txt"]) == "421")
        #expect(try curlStatus(evil + ["-X", "PROPFIND", "-H", "Depth: 1", dav]) == "421")
        #expect(try curlStatus(["-H", "Host:", dav + "a.txt"]) == "400")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("planted.txt").path))
        #expect(try String(contentsOf: root.appendingPathComponent("a.txt"), encoding: .utf8) == "served")

        for host in ["localhost", "localhost:80", "127.0.0.1", "[::1]:1234", "phone.lan:8421"] {
            #expect(try curlStatus(["-H", "Host: \(host)", dav + "a.txt"]) == "200", "\(host)")
        }
        #expect(serve.terminate() == 0)
        let log = String(decoding: serve.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("PUT /dav/planted.txt 421"))
    }

    @Test func tokenServeTakesAnyHostUnlessNamesAreListed() throws {
        let scratch = try root(), root = scratch.url
        let token = "serve-tok-\(UUID().uuidString)"
        let file = try secretFile(root, "token", token, mode: 0o600)
        let auth = ["-H", "Authorization: Bearer \(token)"]

        // The token protects: a page cannot send it, so any Host is answered (LAN names, mDNS, reverse proxies).
        let open = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--token-file", file, "--quiet"],
                                    environment: ["PATH": "/usr/bin:/bin"])
        let dav = try url(open)
        let cmdline = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(open.process.processIdentifier)/cmdline"))
        #expect(!String(decoding: cmdline, as: UTF8.self).contains(token))
        #expect(try curlStatus(auth + ["-H", "Host: box.example", dav + "a.txt"]) == "200")
        #expect(try curlStatus(["-H", "Host: box.example", dav + "a.txt"]) == "401")
        #expect(open.terminate() == 0)

        // --allow-host turns the check on with auth too.
        let strict = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--allow-host", "box.lan", "--quiet"],
                                      environment: ["PATH": "/usr/bin:/bin", "SKYLIFT_TOKEN": token])
        let strictDav = try url(strict)
        #expect(try curlStatus(auth + ["-H", "Host: box.example", strictDav + "a.txt"]) == "421")
        #expect(try curlStatus(auth + ["-H", "Host: box.lan", strictDav + "a.txt"]) == "200")
        #expect(try curlStatus(auth + [strictDav + "a.txt"]) == "200")
        #expect(try curlStatus(["-H", "Authorization: Bearer wrong", strictDav + "a.txt"]) == "401")
        #expect(strict.terminate() == 0)
    }

    @Test func controlBytesInTheTargetStayOneEscapedLogLine() throws {
        let scratch = try root(), root = scratch.url
        let serve = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--no-auth"], environment: ["PATH": "/usr/bin:/bin"])
        let dav = try url(serve)
        let port = Int(dav.split(separator: ":").last?.split(separator: "/").first ?? "") ?? 0
        let status = try rawRequest(port: port, target: "/dav/x%0d%0a200 OK\u{1b}]0;owned\u{07}\u{1b}[2J\ty")
        #expect(status.hasPrefix("HTTP/1.1 404"))
        #expect(try curlStatus([dav + "a.txt"]) == "200")
        #expect(serve.terminate() == 0)
        let log = String(decoding: serve.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("GET /dav/x%0d%0a200%20OK%1B]0;owned%07%1B[2J%09y 404 "))
        #expect(log.unicodeScalars.allSatisfy { $0 == "\n" || ($0.value >= 0x20 && $0.value < 0x7f) })
        #expect(log.split(separator: "\n").filter { $0.hasPrefix("GET ") }.count == 2)
    }
}

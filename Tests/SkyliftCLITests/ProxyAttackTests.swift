import SkyliftCore
import TestPrograms
import Foundation
import SkyliftStorageServer
import Synchronization
import TestProbes
import Testing

/// A token-protected embedded cloud as the proxy's origin: its root holds `media/` (the prefix the proxy is
/// given) and, outside it, `secret.txt`. Every request line it receives is recorded.
final class RecordingOrigin {
    private let scratch: TempFolder
    let base: URL
    let root: URL
    let token = "origin-tok-\(UUID().uuidString)"
    let server: StorageServer
    private let log = RequestLog()

    init() throws {
        scratch = try TempFolder("attack")
        base = scratch.url
        root = try scratch.folder("cloud/media").deletingLastPathComponent()
        try Data("the secret outside the prefix".utf8).write(to: root.appendingPathComponent("secret.txt"))
        try Data("clip bytes".utf8).write(to: root.appendingPathComponent("media/clip.bin"))
        try Data("spaced".utf8).write(to: root.appendingPathComponent("media/a b.bin"))
        server = try StorageServer(configuration: StorageConfiguration(root: root, token: token, accessLog: Logger(label: "access") { [log] line in
            log.record(line)
        }))
        try server.start()
    }

    /// `<base>/dav/media`, the origin the proxy is started with.
    var prefixURL: String { server.baseURL + "/dav/media" }

    var requests: [String] { log.lines.withLock { $0 } }

    /// Stops the server; the folder goes with the origin.
    func stop() { server.stop() }
}

/// `skylift proxy` attacked as a web page, a local user or a hostile player would (issue 10, item 4).
@Suite(.serialized) struct ProxyAttackTests {
    func start(_ origin: RecordingOrigin, _ extra: [String] = [], environment: [String: String]? = nil) throws -> (ProxyProcess, String) {
        let args = ["--origin", origin.prefixURL, "--listen", "127.0.0.1:0", "--cache-dir", origin.base.appendingPathComponent("cache").path] + extra
        let proxy = try environment.map { try ProxyProcess(args, environment: $0) } ?? ProxyProcess(args)
        return (proxy, try proxy.url())
    }

    @Test func foreignHostIsRefusedAndTheOriginSeesNothing() throws {
        let origin = try RecordingOrigin()
        defer { origin.stop() }
        let (proxy, base) = try start(origin, ["--token", origin.token, "--allow-host", "media.lan"])
        let port = String(base.split(separator: ":").last ?? "")
        defer { proxy.process.terminate(); _ = proxy.finish() }

        // A rebinding page's requests carry its own name.
        for host in ["evil.example", "evil.example:\(port)", "127.0.0.1.evil.example", "localhost.evil.example", "[::2]"] {
            #expect(try curlStatus(["-H", "Host: \(host)", base + "/clip.bin"]) == "421", "\(host)")
        }
        let body = try runForOutput(try TestPrograms.path("curl"), ["-s", "-H", "Host: evil.example", base + "/clip.bin"]).out
        #expect(body.contains("--allow-host NAME"))
        // Malformed, repeated or (on HTTP/1.1) missing Host: 400.
        #expect(try curlStatus(["-H", "Host: a b", base + "/clip.bin"]) == "400")
        #expect(try curlStatus(["-H", "Host:", base + "/clip.bin"]) == "400")
        #expect(try rawRequest(port: Int(port) ?? 0, target: "/clip.bin", headerLines: ["Host: localhost", "Host: evil.example"]).hasPrefix("HTTP/1.1 400"))
        #expect(origin.requests.isEmpty, "\(origin.requests)")

        // Loopback names and addresses with any port, and listed names, are served.
        for host in ["127.0.0.1:\(port)", "localhost", "LOCALHOST:1", "127.8.9.10", "[::1]:\(port)", "media.lan", "Media.LAN:8422"] {
            #expect(try curlStatus(["-H", "Host: \(host)", base + "/clip.bin"]) == "200", "\(host)")
        }
        #expect(try fetch(base + "/clip.bin") == Array("clip bytes".utf8), "\(proxy.diagnosis(base + "/clip.bin"))")
        #expect(origin.requests.allSatisfy { $0.contains(" /dav/media/clip.bin ") })
    }

    @Test func pathsLeavingThePrefixAreRefusedBeforeTheOrigin() throws {
        let origin = try RecordingOrigin()
        defer { origin.stop() }
        let (proxy, base) = try start(origin, ["--token", origin.token])
        defer { proxy.process.terminate(); _ = proxy.finish() }

        let attacks = ["/..%2fsecret.txt", "/..%2f..%2fsecret.txt", "/a/../../secret.txt", "/../secret.txt", "/%2e%2e/secret.txt",
                       "/%2E%2e/secret.txt", "/.%2E/secret.txt", "/%2e%2E%2fsecret.txt", "/./clip.bin", "/%2e/clip.bin",
                       "/a%2Fb", "/a%2fb", "/..%5csecret.txt", "/a%5C..%5C..%5Csecret.txt", "/a\\..\\secret.txt",
                       "/clip.bin%00.txt", "/%0d%0aclip.bin", "/bad%zz", "/bad%4"]
        for path in attacks {
            #expect(try curlStatus(["--path-as-is", base + path]) == "400", "\(path)")
        }
        #expect(origin.requests.isEmpty, "\(origin.requests)")

        // Ordinary names, encoded or not, still pass, and only paths under the prefix reach the origin.
        #expect(try fetch(base + "/clip.bin") == Array("clip bytes".utf8))
        #expect(try fetch(base + "/a%20b.bin") == Array("spaced".utf8))
        #expect(try curlStatus([base + "/..clip.bin"]) == "404")
        #expect(!origin.requests.isEmpty)
        for line in origin.requests {
            let path = line.split(separator: " ")[1]
            #expect(path.hasPrefix("/dav/media/") && !path.split(separator: "/").contains(".."), "\(line)")
        }
    }

    @Test func tokenFromAFileOrTheEnvironmentStaysOutOfArgv() throws {
        let origin = try RecordingOrigin()
        defer { origin.stop() }
        let file = try secretFile(origin.base, "token", origin.token + "\n", mode: 0o600)
        let (proxy, base) = try start(origin, ["--token-file", file])
        let cmdline = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(proxy.process.processIdentifier)/cmdline"))
        #expect(!String(decoding: cmdline, as: UTF8.self).contains(origin.token))
        #expect(try fetch(base + "/clip.bin") == Array("clip bytes".utf8))
        proxy.process.terminate()
        #expect(!proxy.finish().errors.contains(origin.token))

        let env = ["PATH": "/usr/bin:/bin", "HOME": origin.base.path, "SKYLIFT_TOKEN": origin.token]
        let (fromEnv, envBase) = try start(origin, [], environment: env)
        #expect(try fetch(envBase + "/clip.bin") == Array("clip bytes".utf8))
        fromEnv.process.terminate()
        _ = fromEnv.finish()

        let headers = try secretFile(origin.base, "headers", "# origin credentials\n\nAuthorization: Bearer \(origin.token)\r\n", mode: 0o400)
        let (withHeaders, headersBase) = try start(origin, ["--header-file", headers])
        #expect(try fetch(headersBase + "/clip.bin") == Array("clip bytes".utf8))
        withHeaders.process.terminate()
        _ = withHeaders.finish()
    }

    @Test func secretFilesOthersCanReadAreRefusedWithoutEchoingThem() async throws {
        let origin = try RecordingOrigin()
        defer { origin.stop() }
        let loose = try secretFile(origin.base, "loose", origin.token, mode: 0o640)
        let r = await runSkylift(["proxy", "--origin", origin.prefixURL, "--token-file", loose])
        #expect(r.status == 1)
        #expect(r.err == "skylift proxy: token file \(loose): other users can access it (mode 640); run 'chmod 600 \(loose)'\n")
        let badLine = try secretFile(origin.base, "badheaders", "Authorization Bearer \(origin.token)\n", mode: 0o600)
        let h = await runSkylift(["proxy", "--origin", origin.prefixURL, "--header-file", badLine])
        #expect(h.status == 1)
        #expect(h.err == "skylift proxy: header file \(badLine), line 1: expected 'NAME: VALUE' with a valid name and no control characters\n")
        let both = await runSkylift(["proxy", "--origin", origin.prefixURL, "--token", "x", "--token-file", loose])
        #expect(both.status == 2)
        #expect(!(r.err + h.err + both.err).contains(origin.token))
        #expect(origin.requests.isEmpty)
    }

    @Test func controlBytesInTheTargetAreEscapedInTheLog() throws {
        let origin = try RecordingOrigin()
        defer { origin.stop() }
        let (proxy, base) = try start(origin, ["--token", origin.token])
        let port = Int(base.split(separator: ":").last ?? "") ?? 0
        let answer = try rawRequest(port: port, target: "/clip\u{1b}[31m\u{7f}\u{9b}x.bin%0d%0aFAKE")
        #expect(answer.hasPrefix("HTTP/1.1 400"))
        #expect(try fetch(base + "/clip.bin") != nil)
        proxy.process.terminate()
        let log = proxy.finish().errors
        let line = try #require(log.split(separator: "\n").first { $0.contains("/clip%1B") })
        #expect(line.hasPrefix("GET /clip%1B[31m%7F%C2%9Bx.bin%0d%0aFAKE 400 "))
        #expect(log.unicodeScalars.allSatisfy { $0 == "\n" || ($0.value >= 0x20 && $0.value < 0x7f) })
    }
}

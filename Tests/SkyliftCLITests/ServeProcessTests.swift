import Foundation
import TestProbes
import Testing

@Suite struct ServeProcessTests {
    @Test func defaultStoreTokenFileAndCleanStop() throws {
        let scratch = try TempFolder("home"), home = scratch.url
        let env = ["HOME": home.path, "PATH": "/usr/bin:/bin"]

        let first = try ServeProcess(["--listen", "127.0.0.1:0", "--quiet"], environment: env)
        let lines = first.lines(3)
        let store = home.appendingPathComponent(".local/share/skylift/store")
        #expect(lines.first == "skylift: serving \(store.path)")
        let url = try #require(lines.first { $0.hasPrefix("  url:") }).replacingOccurrences(of: "  url:   ", with: "")
        #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/dav/") && !url.contains(":0/"))
        let tokenLine = try #require(lines.first { $0.hasPrefix("  token:") })
        let token = String(tokenLine.dropFirst("  token: ".count).prefix { $0 != " " })
        #expect(token.count == 48)
        #expect(tokenLine.contains("(new; saved in"))

        let tokenFile = home.appendingPathComponent(".local/share/skylift/store.token")
        let mode = try FileManager.default.attributesOfItem(atPath: tokenFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        #expect(try curlStatus([url]) == "401")
        #expect(try curlStatus(["-u", "anyone:\(token)", "-X", "PUT", "--data-binary", "hello", url + "a.txt"]) == "201")
        #expect(try curlStatus(["-u", "anyone:\(token)", "-r", "1-3", url + "a.txt"]) == "206")
        #expect(try String(contentsOf: store.appendingPathComponent("a.txt"), encoding: .utf8) == "hello")
        #expect(first.terminate() == 0)

        // A second start reuses the saved token.
        let second = try ServeProcess(["--listen", "127.0.0.1:0", "--quiet"], environment: env)
        let again = second.lines(3)
        #expect(again.contains { $0.hasPrefix("  token: \(token) (from ") })
        #expect(second.terminate() == 0)
    }

    @Test func givenTokenIsNotEchoed() throws {
        let scratch = try TempFolder("root"), root = scratch.url
        let serve = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--token", "s3cret-value"],
                                     environment: ["PATH": "/usr/bin:/bin"])
        let lines = serve.lines(3)
        let url = try #require(lines.first { $0.hasPrefix("  url:") }).replacingOccurrences(of: "  url:   ", with: "")
        #expect(lines.contains("  token: as given"))
        #expect(try curlStatus(["-H", "Authorization: Bearer s3cret-value", "-X", "PUT", "--data-binary", "x", url + "b.txt"]) == "201")
        #expect(try curlStatus(["-H", "Authorization: Bearer wrong", url]) == "401")
        #expect(serve.terminate() == 0)
        let log = String(decoding: serve.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("PUT /dav/b.txt 201"))
        #expect(!log.contains("s3cret-value") && !lines.joined().contains("s3cret-value"))
    }

    @Test func warnsWhenTheTokenWouldCrossTheNetworkInClear() throws {
        let scratch = try TempFolder("warn"), root = scratch.url
        var logs: [String] = []
        for listen in ["0.0.0.0:0", "127.0.0.1:0"] {
            let serve = try ServeProcess(["--root", root.path, "--listen", listen, "--token", "t", "--quiet"],
                                         environment: ["PATH": "/usr/bin:/bin"])
            _ = serve.lines(4)
            _ = serve.terminate()
            logs.append(String(decoding: serve.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        #expect(logs[0].contains("warning: listening on 0.0.0.0:0 without TLS"), "\(logs[0])")
        #expect(logs[0].contains("--tls-self-signed"), "\(logs[0])")
        #expect(!logs[1].contains("warning"), "\(logs[1])")
    }
}

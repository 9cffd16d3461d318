import Foundation
import Testing
import TestPrograms

/// The built `skylift` binary, next to the test bundle in the build folder.
func skyliftBinary() -> URL {
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while dir.path != "/" {
        let candidate = dir.appendingPathComponent("skylift")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        dir.deleteLastPathComponent()
    }
    return URL(fileURLWithPath: ".build/debug/skylift")
}

/// The executable and arguments that run `skylift arguments`, under `umask` when given (through sh, which
/// `exec`s skylift, so the process id is skylift's).
func skyliftInvocation(_ arguments: [String], umask: String? = nil) throws -> (URL, [String]) {
    guard let umask else { return (skyliftBinary(), arguments) }
    return (try TestPrograms.path("bash"), ["-c", "umask \(umask) && exec \"$0\" \"$@\"", skyliftBinary().path] + arguments)
}

/// A running `skylift serve` child whose stdout lines are read as they come.
final class ServeProcess {
    let process = Process()
    let stdout = Pipe()
    let stderr = Pipe()

    /// `umask`: run under this umask (e.g. "000") to check that files get their mode at creation. `errors`: a
    /// file that takes stderr (the access log) instead of a pipe nobody drains.
    init(_ arguments: [String], environment: [String: String], umask: String? = nil, errors: URL? = nil) throws {
        (process.executableURL, process.arguments) = try skyliftInvocation(["serve"] + arguments, umask: umask)
        process.environment = environment
        process.standardOutput = stdout
        if let errors {
            FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errors)
        } else {
            process.standardError = stderr
        }
        try process.run()
    }

    /// Reads stdout until `count` lines arrived (or EOF).
    func lines(_ count: Int) -> [String] {
        var buffer = Data()
        while buffer.split(separator: UInt8(ascii: "\n")).count < count {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func terminate() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

func curlStatus(_ args: [String]) throws -> String {
    let p = Process()
    p.executableURL = try TestPrograms.path("curl")
    p.arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}"] + args
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let out = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: out, as: UTF8.self)
}

@Suite struct ServeProcessTests {
    @Test func defaultStoreTokenFileAndCleanStop() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
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
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-root-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
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
}

import Foundation
@testable import SkyliftCLI
import TestProbes
import Testing
import TestPrograms

/// A scratch home with its own XDG folders, and the built binary run in it.
struct ServiceHome {
    /// Removed when the last copy of this goes.
    let scratch: TempFolder
    var root: URL { scratch.url }
    var config: URL { root.appendingPathComponent("config") }
    var data: URL { root.appendingPathComponent("data") }
    var units: URL { config.appendingPathComponent("systemd/user") }

    init() throws {
        scratch = try TempFolder("svc")
        try scratch.folder("home")
    }

    var environment: [String: String] {
        ["HOME": root.appendingPathComponent("home").path, "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": config.path,
         "XDG_DATA_HOME": data.path, "XDG_STATE_HOME": root.appendingPathComponent("state").path,
         "AWS_PROFILE": "media", "AWS_SECRET_ACCESS_KEY": "never-in-a-unit"]
    }

    /// `skylift service ARGS` from `root` (so relative paths are relative to it).
    func service(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try runProgram(skyliftBinary(), ["service"] + arguments, in: root, environment: environment)
    }

    /// `systemd-analyze --user verify` on `unit`: passes only with status 0 and nothing printed (warnings such
    /// as an unknown key leave the status at 0).
    func verify(_ unit: URL) throws -> String? {
        let runtime = root.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var environment = self.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        let r = try runProgram(TestPrograms.path("systemd-analyze"), ["--user", "verify", unit.path], environment: environment)
        return r.status == 0 && r.out.isEmpty && r.err.isEmpty ? nil : "status \(r.status): \(r.out)\(r.err)"
    }
}

/// The words of a unit's `ExecStart=` line, read back as systemd reads double-quoted words.
func execStartWords(_ unit: String) throws -> [String] {
    let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
    var words: [String] = [], current = "", inWord = false, escaped = false
    for character in line.dropFirst("ExecStart=".count) {
        if escaped { current.append(character); escaped = false; continue }
        switch character {
        case "\\" where inWord: escaped = true
        case "\"": if inWord { words.append(current); current = "" }; inWord.toggle()
        default: if inWord { current.append(character) }
        }
    }
    return words.map { $0.replacingOccurrences(of: "%%", with: "%").replacingOccurrences(of: "$$", with: "$") }
}

@Suite struct ServiceCommandTests {
    @Test func watchUnitIsVerifiedNamedLikeSystemdEscapeAndRemoved() throws {
        let home = try ServiceHome()
        let dir = home.root.appendingPathComponent("My Photos-1 ü")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data("t0ken\n".utf8).write(to: home.root.appendingPathComponent("tok"))
        let r = try home.service(["install", "watch", "My Photos-1 ü", "--settle", "5", "--token-file", "tok", "--ignore", "*.raw", "--json"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.contains("AWS_SECRET_ACCESS_KEY not copied"))

        let escaped = try runProgram(TestPrograms.path("systemd-escape"), ["--path", dir.path]).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let name = "skylift-watch-\(escaped).service"
        let file = home.units.appendingPathComponent(name)
        #expect(r.out.contains("  systemctl --user daemon-reload && systemctl --user enable --now '\(name)'\n"))
        let unit = try String(contentsOf: file, encoding: .utf8)
        #expect(try execStartWords(unit) == [skyliftBinary().resolvingSymlinksInPath().path, "watch", dir.path,
                                             "--token-file", home.root.appendingPathComponent("tok").path,
                                             "--settle", "5", "--ignore", "*.raw", "--json"])
        for line in ["Restart=on-failure", "WantedBy=default.target", "Environment=\"XDG_DATA_HOME=\(home.data.path)\"",
                     "Environment=\"XDG_CONFIG_HOME=\(home.config.path)\"", "Environment=\"AWS_PROFILE=media\""] {
            #expect(unit.contains("\n\(line)\n"), "\(line)")
        }
        #expect(!unit.contains("never-in-a-unit") && !unit.contains("t0ken"))
        #expect(try home.verify(file) == nil)

        // `systemctl enable` would link it into default.target.wants; uninstall removes both.
        let wants = home.units.appendingPathComponent("default.target.wants")
        try FileManager.default.createDirectory(at: wants, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: wants.appendingPathComponent(name), withDestinationURL: file)
        let gone = try home.service(["uninstall", "watch", "My Photos-1 ü"])
        #expect(gone.status == 0, "\(gone.err)")
        #expect(gone.out.contains("systemctl --user stop '\(name)'"))
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: wants.appendingPathComponent(name).path)) == nil)
        #expect(try home.service(["uninstall", "watch", "My Photos-1 ü"]).status == 1)
    }

    /// The serve unit, run exactly as its ExecStart and Environment say, serves the store of the installing
    /// shell's XDG_DATA_HOME even though the service's HOME differs.
    @Test func serveUnitRunsAsWrittenWithTheSameXDGStore() throws {
        let home = try ServiceHome()
        let r = try home.service(["install", "serve", "--listen", "127.0.0.1:0", "--quiet"])
        #expect(r.status == 0, "\(r.err)")
        let file = home.units.appendingPathComponent("skylift-serve.service")
        let unit = try String(contentsOf: file, encoding: .utf8)
        #expect(try home.verify(file) == nil)

        var environment = ["PATH": "/usr/bin:/bin", "HOME": home.root.appendingPathComponent("elsewhere").path]
        for line in unit.split(separator: "\n") where line.hasPrefix("Environment=\"") {
            let assignment = line.dropFirst("Environment=\"".count).dropLast()
            let (name, value) = try #require(assignment.firstIndex(of: "=").map { (assignment[..<$0], assignment[assignment.index(after: $0)...]) })
            environment[String(name)] = String(value)
        }
        let words = try execStartWords(unit)
        #expect(words.prefix(2) == [skyliftBinary().resolvingSymlinksInPath().path, "serve"])
        let serve = try ServeProcess(Array(words.dropFirst(2)), environment: environment)
        #expect(serve.lines(3).first == "skylift: serving \(home.data.path)/skylift/store")
        #expect(serve.terminate() == 0)
    }

    @Test func secretsAreRefusedAndNothingIsWritten() throws {
        let home = try ServiceHome()
        let cases: [([String], String)] = [
            (["install", "proxy", "--origin", "http://127.0.0.1:9/dav", "--token", "s3cret-v4lue"], "'--token'"),
            (["install", "proxy", "--origin", "http://127.0.0.1:9/dav", "--header", "Authorization: Bearer s3cret-v4lue"], "'--header'"),
            (["install", "serve", "--token=s3cret-v4lue"], "'--token'"),
        ]
        for (arguments, option) in cases {
            let r = try home.service(arguments)
            #expect(r.status == 2)
            #expect(r.err.hasPrefix("skylift service: \(option) would write a secret into the unit file"), "\(r.err)")
            #expect(r.err.contains("-file FILE' instead"))
            #expect(!r.err.contains("s3cret-v4lue") && !r.out.contains("s3cret-v4lue"))
        }
        #expect((try? FileManager.default.contentsOfDirectory(atPath: home.units.path)) == nil)

        // Without the secret the same proxy installs, with --cache-dir made absolute.
        let ok = try home.service(["install", "proxy", "--origin", "http://127.0.0.1:9/dav", "--cache-dir", "cache"])
        #expect(ok.status == 0, "\(ok.err)")
        let file = home.units.appendingPathComponent("skylift-proxy.service")
        #expect(try execStartWords(String(contentsOf: file, encoding: .utf8)).suffix(4)
                == ["--origin", "http://127.0.0.1:9/dav", "--cache-dir", home.root.appendingPathComponent("cache").path])
        #expect(try home.verify(file) == nil)
    }

    @Test func mistakesNameWhatIsWrong() throws {
        let home = try ServiceHome()
        let cases: [([String], Int32, String)] = [
            (["install"], 2, "skylift service: expected 2 arguments, got 1 (see 'skylift service --help')\n"),
            (["start", "serve"], 2, "skylift service: bad value 'start' for 'ACTION': expected install or uninstall\n"),
            (["install", "copy"], 2, "skylift service: bad value 'copy' for 'COMMAND': expected watch, serve or proxy\n"),
            (["install", "serve", "--bogus"], 2, "skylift serve: unknown option '--bogus' (see 'skylift serve --help')\n"),
            // Values are typed as the command types them, so a unit that would fail at every start is not written.
            (["install", "watch", "DIR", "--settle", "soon"], 2, "skylift watch: bad value 'soon' for '--settle': expected seconds from 0.0 to 86400.0\n"),
            (["install", "proxy", "--origin", "http://127.0.0.1:9/", "--max-cache-size", "1K"], 2,
             "skylift proxy: bad value '1K' for '--max-cache-size': expected a size of at least 1M, e.g. 500M or 2G\n"),
            (["install", "watch", "missing"], 1, "skylift service: \(home.root.path)/missing is not a folder\n"),
            (["uninstall", "serve"], 1, "skylift service: no unit skylift-serve.service in \(home.units.path)\n"),
            // A newline would start a line of its own in the unit.
            (["install", "serve", "--root", "x\nExecStartPre=/bin/false"], 1, "skylift service: cannot write a unit: "
                + "\("\(home.root.path)/x\nExecStartPre=/bin/false".debugDescription) holds a control character, which a systemd unit cannot carry\n"),
        ]
        for (arguments, status, message) in cases {
            let r = try home.service(arguments)
            #expect(r.status == status, "\(arguments)")
            #expect(r.err == message, "\(arguments)")
        }
        #expect((try? FileManager.default.contentsOfDirectory(atPath: home.units.path)) == nil)
    }

    @Test func pathEscapingMatchesSystemdEscape() throws {
        let paths = ["/", "/home/me/Pictures", "/srv/.hidden/x", "/a-b/c_d/e.f:g", "/tmp/My Photos ü/日本", "/x/%$\\\"'",
                     "/.dot", "/trailing/"]
        // One line, names separated by spaces (escaped names hold none).
        let expected = try runProgram(TestPrograms.path("systemd-escape"), ["--path"] + paths).out
            .split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(paths.map(SystemdUnit.escapedPath) == expected)
    }

    @Test func versionNamesTheCommitOfTheCheckout() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let git = try runProgram(TestPrograms.path("git"), ["-C", repository.path, "rev-parse", "--short=7", "HEAD"])
        let commit = git.status == 0 ? git.out.trimmingCharacters(in: .whitespacesAndNewlines) : "unknown"
        let r = try runProgram(skyliftBinary(), ["--version"])
        #expect(r.status == 0)
        #expect(r.out == "skylift \(Skylift.version) (\(commit))\n")
    }
}

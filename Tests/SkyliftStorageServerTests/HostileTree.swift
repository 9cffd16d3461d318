import TestPrograms
import Foundation
import TestProbes
import Testing

/// A real `skylift serve` child over a temp root, beside an "outside" folder (a secret file and a subfolder)
/// that links in the root may point at. Every answer is kept, so a test can check that the secret never
/// left the server and that the outside folder is byte-for-byte what it was.
final class HostileTree {
    private let scratch: TempFolder
    let base: URL
    let root: URL
    let outside: URL
    /// Text in every outside file; it must never appear in an answer or in a file inside the root.
    let secret = "TOP-SECRET-" + UUID().uuidString
    let url: String
    private let serve: ServeProcess
    private var outsideBefore: [String: Data] = [:]
    private var answers: [String] = []

    struct Answer {
        var status: Int
        var body: String
    }

    init() throws {
        scratch = try TempFolder("hostile")
        base = scratch.url
        root = base.appendingPathComponent("root")
        outside = base.appendingPathComponent("outside")
        let fm = FileManager.default
        try fm.createDirectory(at: outside.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try fm.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("\(secret) file".utf8).write(to: outside.appendingPathComponent("secret.txt"))
        try Data("\(secret) inner".utf8).write(to: outside.appendingPathComponent("sub/inner.txt"))
        outsideBefore = try Self.snapshot(outside)
        serve = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--no-auth", "--quiet"],
                                 environment: ["PATH": "/usr/bin:/bin"])
        let lines = serve.lines(3)
        guard let line = lines.first(where: { $0.hasPrefix("  url:") }) else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "serve printed \(lines)"])
        }
        url = line.replacingOccurrences(of: "  url:   ", with: "")
    }

    deinit {
        serve.process.terminate()
        // A server stuck on a connection must not hang the suite: it gets a few seconds, then SIGKILL.
        let deadline = Date().addingTimeInterval(5)
        while serve.process.isRunning && Date() < deadline { usleep(20_000) }
        if serve.process.isRunning { kill(serve.process.processIdentifier, SIGKILL) }
        serve.process.waitUntilExit()
    }

    func file(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    func write(_ relative: String, _ text: String) throws {
        let u = file(relative)
        try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: u)
    }

    /// A symlink at `relative` in the root whose target is `target` verbatim.
    func link(_ relative: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: file(relative).path, withDestinationPath: target)
    }

    /// True when something (a link included, even a dangling one) is at `relative`.
    func exists(_ relative: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: file(relative).path)) != nil
    }

    /// Sends one request with curl (10 s cap, so a stuck server shows up as status 0, not a hung test);
    /// `path` is below `/dav/`, or absolute when it starts with `/`.
    @discardableResult
    func send(_ method: String, _ path: String, _ headers: [String] = [], body: String? = nil) throws -> Answer {
        let text = try runForOutput(try TestPrograms.path("curl"), ["-s", "--path-as-is", "--max-time", "10", "-X", method, "-w", "\n%{http_code}"]
            + (method == "HEAD" ? ["-I"] : []) + headers.flatMap { ["-H", $0] } + (body.map { ["--data-binary", $0] } ?? [])
            + [path.hasPrefix("/") ? String(url.dropLast("/dav/".count)) + path : url + path]).out
        // -w appended "\n<status>": the body is everything before that last newline.
        let newline = text.range(of: "\n", options: .backwards)
        let answer = Answer(status: Int(text[(newline?.upperBound ?? text.startIndex)...]) ?? 0,
                            body: String(text[..<(newline?.lowerBound ?? text.startIndex)]))
        answers.append(answer.body)
        return answer
    }

    func destination(_ path: String) -> String { "Destination: " + url + path }

    /// The process is alive and answering, no answer held the secret, no file in the root holds it, and the
    /// outside folder is exactly as it was.
    func expectUnharmed(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(serve.process.isRunning, "serve died", sourceLocation: sourceLocation)
        try write("alive.txt", "alive")
        let control = try send("GET", "alive.txt")
        #expect(control.status == 200 && control.body == "alive", "serve stopped answering", sourceLocation: sourceLocation)
        for answer in answers {
            #expect(!answer.contains(secret), "an answer leaked the secret: \(answer.prefix(200))", sourceLocation: sourceLocation)
        }
        for (name, data) in try Self.snapshot(root) {
            #expect(data.range(of: Data(secret.utf8)) == nil, "\(name) in the root holds outside data",
                    sourceLocation: sourceLocation)
        }
        #expect(try Self.snapshot(outside) == outsideBefore, "the outside folder changed", sourceLocation: sourceLocation)
    }

    /// Regular files below `folder` (links not followed) with their bytes, plus an entry per folder.
    static func snapshot(_ folder: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let fm = FileManager.default
        func walk(_ dir: URL, _ prefix: String) throws {
            for name in try fm.contentsOfDirectory(atPath: dir.path) {
                let u = dir.appendingPathComponent(name)
                let type = try fm.attributesOfItem(atPath: u.path)[.type] as? FileAttributeType
                if type == .typeDirectory {
                    out[prefix + name + "/"] = Data()
                    try walk(u, prefix + name + "/")
                } else if type == .typeRegular {
                    out[prefix + name] = try Data(contentsOf: u)
                }
            }
        }
        try walk(folder, "")
        return out
    }
}

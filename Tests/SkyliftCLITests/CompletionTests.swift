import Foundation
import SkyliftCLI
import TestProbes
import Testing
import TestPrograms

/// Runs `program` with `arguments` in `directory`; stdout and stderr as text.
func runProgram(_ program: URL, _ arguments: [String], in directory: URL? = nil,
                environment: [String: String]? = nil) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = program
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Both pipes are small here (completion lists), so reading one after the other cannot stall the child.
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
}

/// A scratch folder whose `cwd` holds one subfolder and one file, to tell folder completion from file
/// completion; the scripts go beside `cwd`.
func completionScratch() throws -> TempFolder {
    let scratch = try TempFolder("comp")
    let dir = try scratch.folder("cwd/adir").deletingLastPathComponent()
    try Data("x".utf8).write(to: dir.appendingPathComponent("afile"))
    return scratch
}

/// `skylift completions SHELL`, run in real bash, fish and zsh, for every command and every option.
@Suite struct CompletionTests {
    static let specs = Skylift.commands.map { $0.spec }

    /// The script, written next to the scratch folder `dir` (not in it, where it would be completed too).
    static func script(_ shell: String, in dir: URL) async throws -> URL {
        let r = await runSkylift(["completions", shell])
        #expect(r.status == 0 && r.err.isEmpty)
        let file = dir.deletingLastPathComponent().appendingPathComponent("skylift.\(shell)")
        try Data(r.out.utf8).write(to: file)
        return file
    }

    /// What the scratch folder should offer for `completion` when the word typed so far is empty.
    static func expected(_ completion: ValueCompletion) -> Set<String> {
        switch completion {
        case .none: []
        case .files: ["adir", "afile"]
        case .directories: ["adir"]
        case let .words(words): Set(words)
        }
    }

    /// Every case: the words after `skylift` (the last is the one being completed) and what bash must offer.
    static func cases() -> [(words: [String], expected: Set<String>)] {
        var cases: [([String], Set<String>)] = [
            ([""], Set(specs.map(\.name) + ["help", "--help", "--version"])),
            (["serve", "--quiet", "--"], Set(specs[0].allOptions.map(\.name))),
            (["serve", "--root", "=", ""], ["adir"]),
        ]
        for spec in specs {
            cases.append(([spec.name, "--"], Set(spec.allOptions.map(\.name))))
            for option in spec.options where option.valueName != nil {
                cases.append(([spec.name, option.name, ""], expected(option.valueCompletion)))
            }
            if !spec.positionalCompletions.isEmpty {
                cases.append(([spec.name, ""], expected(spec.positionalCompletion(0))))
            }
        }
        cases.append((["service", "install", ""], ["watch", "serve", "proxy"]))
        for kind in ["watch", "serve", "proxy"] {
            let inner = specs.first { $0.name == kind }!
            cases.append((["service", "install", kind, "--"], Set(inner.allOptions.map(\.name))))
        }
        cases.append((["service", "uninstall", "watch", ""], ["adir"]))
        return cases
    }

    @Test func bashCompletesEveryCommandOptionAndValue() async throws {
        let scratch = try completionScratch(), dir = scratch.appending("cwd")
        let script = try await Self.script("bash", in: dir)
        // One bash for all cases: each prints its completions on one line.
        var driver = "source \(script.path)\n"
        driver += "t() { COMP_WORDS=(skylift \"$@\"); COMP_CWORD=$#; COMPREPLY=(); _skylift; printf '%s\\n' \"${COMPREPLY[*]}\"; }\n"
        let cases = Self.cases()
        for c in cases { driver += "t " + c.words.map { "'\($0)'" }.joined(separator: " ") + "\n" }
        let r = try runProgram(TestPrograms.path("bash"), ["--norc", "--noprofile", "-c", driver], in: dir)
        #expect(r.status == 0 && r.err.isEmpty, "\(r.err)")
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count == cases.count + 1)
        for (c, line) in zip(cases, lines) {
            let offered = Set(line.split(separator: " ").map { String($0).hasSuffix("/") ? String($0.dropLast()) : String($0) })
            #expect(offered == c.expected, "skylift \(c.words.joined(separator: " "))")
        }
    }

    @Test func fishCompletesEveryCommandAndOption() async throws {
        let scratch = try completionScratch(), dir = scratch.appending("cwd")
        let script = try await Self.script("fish", in: dir)
        #expect(try runProgram(TestPrograms.path("fish"), ["--no-config", "-n", script.path]).status == 0)
        var driver = "source \(script.path)\n"
        let lines: [(String, Set<String>)] = Self.specs.map { ("skylift \($0.name) --", Set($0.allOptions.map(\.name))) } + [
            ("skylift ", Set(Self.specs.map(\.name))),
            ("skylift watch adir --s3-addressing ", ["path", "virtual", "auto"]),
            ("skylift serve --root ", ["adir/"]),
            ("skylift service install ", ["watch", "serve", "proxy"]),
            ("skylift service install proxy --", Set(Self.specs.first { $0.name == "proxy" }!.allOptions.map(\.name))),
            ("skylift completions ", ["bash", "zsh", "fish"]),
        ]
        for (line, _) in lines { driver += "echo '@@'; complete -C '\(line)'\n" }
        let r = try runProgram(TestPrograms.path("fish"), ["--no-config", "-c", driver], in: dir)
        #expect(r.status == 0 && r.err.isEmpty, "\(r.err)")
        let blocks = r.out.components(separatedBy: "@@\n").dropFirst()
        try #require(blocks.count == lines.count)
        for ((line, expected), block) in zip(lines, blocks) {
            let offered = Set(block.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) })
            #expect(offered == expected, "\(line)")
        }
    }

    @Test func zshScriptParsesAndNamesEveryOption() async throws {
        let scratch = try completionScratch(), dir = scratch.appending("cwd")
        let script = try await Self.script("zsh", in: dir)
        let check = try runProgram(TestPrograms.path("zsh"), ["-n", script.path])
        #expect(check.status == 0 && check.err.isEmpty, "\(check.err)")
        let text = try String(contentsOf: script, encoding: .utf8)
        #expect(text.hasPrefix("#compdef skylift\n"))
        for spec in Self.specs {
            #expect(text.contains("_skylift_\(spec.name)() {"), "\(spec.name)")
            #expect(text.contains("'\(spec.name):"), "\(spec.name) in the command list")
            for option in spec.allOptions {
                let forms = ["'\(option.name)[", "'\(option.name)=[", "'*\(option.name)=[", "'(- *)\(option.name)["]
                #expect(forms.contains { text.contains($0) }, "\(spec.name) \(option.name)")
            }
        }
    }

    @Test func unknownShellIsAUsageError() async {
        let r = await runSkylift(["completions", "tcsh"])
        #expect(r.status == 2)
        #expect(r.err == "skylift completions: bad value 'tcsh' for 'SHELL': expected bash, zsh or fish\n")
    }
}

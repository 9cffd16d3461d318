@testable import SkyliftCLI
import Testing

/// Options of the demo command, typed as every command's are.
struct DemoOptions: CommandOptions {
    var n: Int?
    var x = false
    var header = DemoHeaders()

    static let declarations: [OptionDeclaration<DemoOptions>] = [
        .value("--n", "N", help: "a number", \.n, as: .integer(1...5)),
        .flag("--x", help: "a flag", \.x),
    ] + DemoHeaders.declarations.within(\.header)
}

/// A shared group, nested into `DemoOptions`.
struct DemoHeaders: CommandOptions {
    var values: [String] = []
    var file: String?

    static let declarations: [OptionDeclaration<DemoHeaders>] = [
        .repeated("--header", "H", help: "extra header", \.values),
        .value("--header-file", "FILE", help: "headers", \.file),
    ]
}

@Suite struct CommandLineParserTests {
    let spec = CommandSpec(
        name: "demo", summary: "a demo", usage: "demo [--n N] [--x] FILE...",
        options: DemoOptions.specs,
        positionals: 1...Int.max)

    @Test func valuesFlagsAndPositionals() throws {
        let p = try parseArguments(["a", "--n", "3", "--x", "--header=A: b", "--header", "C: d", "--", "--not-an-option"], for: spec)
        #expect(p.positionals == ["a", "--not-an-option"])
        let options = try DemoOptions(p)
        #expect(options.n == 3)
        #expect(options.x)
        #expect(options.header.values == ["A: b", "C: d"])
        #expect(options.header.file == nil)
        let none = try DemoOptions(try parseArguments(["a"], for: spec))
        #expect(none.n == nil && !none.x && none.header.values.isEmpty)
    }

    @Test func groupsKeepTheirSpellingAndHelpInOnePlace() throws {
        #expect(spec.options.map(\.name) == ["--n", "--x", "--header", "--header-file"])
        #expect(DemoOptions.name(\.header.file) == "--header-file")
        #expect(DemoOptions.name(\.n) == "--n")
        let reworded = DemoHeaders.declarations.help(\.values, "sent to the origin")
        #expect(reworded.map(\.spec.help) == ["sent to the origin", "headers"])
        let both = try DemoOptions(try parseArguments(["a", "--x", "--header-file", "f"], for: spec))
        #expect(throws: UsageError.conflicting(command: "demo", options: ["--x", "--header-file"])) {
            try both.exclusive(\.n, \.x, \.header.file, command: "demo")
        }
        try both.exclusive(\.n, \.x, command: "demo")
    }

    @Test func errorsNameTheFlag() {
        #expect(throws: UsageError.unknownOption(command: "demo", option: "--nope")) { try parseArguments(["a", "--nope"], for: spec) }
        #expect(throws: UsageError.missingValue(command: "demo", option: "--n")) { try parseArguments(["a", "--n"], for: spec) }
        #expect(throws: UsageError.unexpectedValue(command: "demo", option: "--x")) { try parseArguments(["a", "--x=1"], for: spec) }
        #expect(throws: UsageError.repeated(command: "demo", option: "--n")) { try parseArguments(["a", "--n", "1", "--n", "2"], for: spec) }
        #expect(throws: UsageError.self) { try parseArguments([], for: spec) }
        #expect(throws: UsageError.badValue(command: "demo", option: "--n", value: "9", expected: "a whole number from 1 to 5")) {
            try DemoOptions(try parseArguments(["a", "--n", "9"], for: spec))
        }
        #expect(UsageError.unknownOption(command: "demo", option: "--nope").description == "demo: unknown option '--nope' (see 'skylift demo --help')")
    }

    @Test func helpAnywhereSkipsArgumentCount() throws {
        #expect(try parseArguments(["--help"], for: spec).helpRequested)
        #expect(try parseArguments(["-h"], for: spec).helpRequested)
    }

    @Test func argumentsAfterPassThroughAreKeptVerbatim() throws {
        let outer = CommandSpec(name: "outer", summary: "", usage: "", options: [OptionSpec("--x", help: "a flag")],
                                positionals: 2...2, passThroughAfter: 2)
        let p = try parseArguments(["--x", "install", "watch", "DIR", "--settle", "5", "--help", "--", "-y"], for: outer)
        #expect(p.flag("--x") && !p.helpRequested)
        #expect(p.positionals == ["install", "watch"])
        #expect(p.passedThrough == ["DIR", "--settle", "5", "--help", "--", "-y"])
        #expect(throws: UsageError.wrongArgumentCount(command: "outer", expected: "2 arguments, got 1")) {
            try parseArguments(["install"], for: outer)
        }
        #expect(throws: UsageError.unknownOption(command: "outer", option: "--settle")) {
            try parseArguments(["install", "--settle", "5"], for: outer)
        }
    }

    @Test func listenAddresses() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8421", option: "--listen", command: "serve") == ListenAddress(host: "127.0.0.1", port: 8421))
        #expect(try ListenAddress(parsing: "[::1]:0", option: "--listen", command: "serve") == ListenAddress(host: "::1", port: 0))
        for bad in ["8421", "host:", ":80", "h:99999", "::1:80", "[::1]80"] {
            #expect(throws: UsageError.self) { try ListenAddress(parsing: bad, option: "--listen", command: "serve") }
        }
    }
}

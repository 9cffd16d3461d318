import Foundation

/// A `skylift` subcommand.
public protocol Command {
    /// The command's options, declared once; `spec.options` is `Options.specs`.
    associatedtype Options: CommandOptions
    /// What the command accepts; drives parsing and `--help`.
    static var spec: CommandSpec { get }
    /// Runs with the typed command line; returns the process exit status.
    static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32
    /// Whether the command runs until SIGINT or SIGTERM and then stops cleanly (it waits on a
    /// ``ShutdownSignal``); the process then catches those signals from its start.
    static var stopsOnSignal: Bool { get }
}

extension Command {
    public static var stopsOnSignal: Bool { false }

    /// Types `arguments` (already checked against `spec`) into `Options` and runs.
    static func run(parsed arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
        try await run(Invocation(arguments), context: context)
    }

    /// Checks that `arguments` hold values this command accepts, as running it would, without running it.
    static func check(_ arguments: ParsedArguments) throws(UsageError) {
        _ = try Options(arguments)
    }
}

/// A command line typed for one command: its options and positional arguments.
public struct Invocation<Options: CommandOptions>: Sendable {
    public var options: Options
    public var positionals: [String]
    /// The arguments after `CommandSpec.passThroughAfter` positionals, untouched.
    public var passedThrough: [String]

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try Options(arguments)
        positionals = arguments.positionals
        passedThrough = arguments.passedThrough
    }
}

/// The options of a command that takes none.
public struct NoOptions: CommandOptions {
    public init() {}
    public static var declarations: [OptionDeclaration<NoOptions>] { [] }
}

/// The world a command runs in: environment and output, injected so tests can capture them.
public struct CommandContext: Sendable {
    public var environment: [String: String]
    public var output: TextSink
    public var errors: TextSink
    /// Whether standard output is a terminal (live progress lines) or a pipe (plain lines).
    public var isTerminal: Bool

    public init(environment: [String: String], output: TextSink, errors: TextSink, isTerminal: Bool) {
        self.environment = environment
        self.output = output
        self.errors = errors
        self.isTerminal = isTerminal
    }

    /// The process's own environment, standard output and standard error.
    public static func process() -> CommandContext {
        CommandContext(environment: ProcessInfo.processInfo.environment, output: .standardOutput,
                       errors: .standardError, isTerminal: isatty(1) == 1)
    }
}

/// A destination for text lines.
public struct TextSink: Sendable {
    public let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }

    /// Writes `line` plus a newline. Lines carry names and messages from outside, so control characters in
    /// them are shown as escapes (see `TerminalText`); a line never needs one of its own.
    public func line(_ line: String) { write(TerminalText.safe(line) + "\n") }

    public static let standardOutput = TextSink { text in
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    public static let standardError = TextSink { text in
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// A failure while running a command, reported as one line and a non-zero exit.
public struct CommandFailure: Error, CustomStringConvertible {
    public var message: String
    public var exitCode: Int32

    public init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String { message }
}

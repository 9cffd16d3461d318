/// One option a command accepts.
public struct OptionSpec: Sendable {
    /// Long name including dashes, e.g. `--root`.
    public var name: String
    /// Value placeholder shown in help (`DIR`); nil for a flag that takes no value.
    public var valueName: String?
    /// One line of help.
    public var help: String
    /// Whether the option may be given more than once (values accumulate).
    public var repeatable: Bool
    /// The only values shell completion offers (`path`, `virtual`, `auto`); empty for free-form values.
    public var choices: [String]

    public init(_ name: String, _ valueName: String? = nil, help: String, repeatable: Bool = false, choices: [String] = []) {
        self.name = name
        self.valueName = valueName
        self.help = help
        self.repeatable = repeatable
        self.choices = choices
    }

    /// What shell completion offers for the value: `choices`, else folders for `DIR`, files for `FILE`.
    public var valueCompletion: ValueCompletion {
        if !choices.isEmpty { return .words(choices) }
        return ValueCompletion(placeholder: valueName ?? "")
    }
}

/// What a command accepts and how it describes itself in `--help`.
public struct CommandSpec: Sendable {
    public var name: String
    /// One line for the command list.
    public var summary: String
    /// The synopsis after `usage: skylift`, e.g. `serve [--root DIR] ...`.
    public var usage: String
    /// Longer description (may be several lines), printed after the usage line.
    public var details: String
    public var options: [OptionSpec]
    /// Fewest and most positional arguments (`Int.max` for any number).
    public var positionals: ClosedRange<Int>
    /// Shown after the options in help.
    public var examples: [String]
    /// What shell completion offers for each positional argument; the last entry repeats.
    public var positionalCompletions: [ValueCompletion]
    /// After this many positional arguments, the rest belong to the command the last one names
    /// (`service install watch DIR --settle 5`): they are kept verbatim for that command's own parser.
    public var passThroughAfter: Int?

    public init(name: String, summary: String, usage: String, details: String = "", options: [OptionSpec],
                positionals: ClosedRange<Int> = 0...0, positionalCompletions: [ValueCompletion] = [],
                passThroughAfter: Int? = nil, examples: [String] = []) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.details = details
        self.options = options
        self.positionals = positionals
        self.examples = examples
        self.positionalCompletions = positionalCompletions
        self.passThroughAfter = passThroughAfter
    }

    /// Every option including the implicit `--help`, in help order.
    public var allOptions: [OptionSpec] { options + [OptionSpec("--help", help: "show this help and exit")] }

    /// Completion for positional argument `index` (0-based).
    public func positionalCompletion(_ index: Int) -> ValueCompletion {
        guard let last = positionalCompletions.last else { return .none }
        return index < positionalCompletions.count ? positionalCompletions[index] : last
    }

    /// The exact text `skylift <name> --help` prints.
    public var helpText: String {
        var lines = ["usage: skylift \(usage)", ""]
        lines.append(details.isEmpty ? summary : details)
        lines.append("")
        lines.append("options:")
        let all = allOptions
        let labels = all.map { o in o.valueName.map { "\(o.name) \($0)" } ?? o.name }
        let width = min(max(labels.map(\.count).max() ?? 0, 10), 28)
        for (label, option) in zip(labels, all) {
            let suffix = option.repeatable ? " (repeatable)" : ""
            if label.count > width {
                lines.append("  \(label)")
                lines.append("  " + String(repeating: " ", count: width + 2) + option.help + suffix)
            } else {
                lines.append("  " + label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + option.help + suffix)
            }
        }
        if !examples.isEmpty {
            lines.append("")
            lines.append("examples:")
            lines.append(contentsOf: examples.map { "  \($0)" })
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A command line split into options and positional arguments, checked against a `CommandSpec` but not yet
/// typed: commands receive their `CommandOptions` struct (see `Invocation`), never this.
public struct ParsedArguments: Sendable {
    public let command: String
    public private(set) var values: [String: [String]] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []
    public private(set) var helpRequested = false
    /// The arguments after `CommandSpec.passThroughAfter` positionals, untouched.
    public private(set) var passedThrough: [String] = []

    init(command: String) { self.command = command }

    /// Whether the flag `option` was given.
    public func flag(_ option: String) -> Bool { flags.contains(option) }
    /// Every value given to `option`, in order.
    public func all(_ option: String) -> [String] { values[option] ?? [] }
    /// Whether `option` (a flag or an option with values) was given.
    public func isGiven(_ option: String) -> Bool { flags.contains(option) || values[option] != nil }

    fileprivate mutating func add(_ name: String, _ value: String) { values[name, default: []].append(value) }
    fileprivate mutating func set(_ name: String) { flags.insert(name) }
    fileprivate mutating func positional(_ value: String) { positionals.append(value) }
    fileprivate mutating func requestHelp() { helpRequested = true }
    fileprivate mutating func passThrough(_ rest: [String]) { passedThrough = rest }
}

/// A mistake on the command line. The message names the command and the flag or value at fault.
public enum UsageError: Error, Equatable, CustomStringConvertible {
    case unknownCommand(String)
    case unknownOption(command: String, option: String)
    case missingValue(command: String, option: String)
    case unexpectedValue(command: String, option: String)
    case repeated(command: String, option: String)
    case badValue(command: String, option: String, value: String, expected: String)
    case conflicting(command: String, options: [String])
    case wrongArgumentCount(command: String, expected: String)
    case invalid(command: String, message: String)

    public var description: String {
        switch self {
        case let .unknownCommand(name):
            "unknown command '\(name)' (see 'skylift --help')"
        case let .unknownOption(command, option):
            "\(command): unknown option '\(option)' (see 'skylift \(command) --help')"
        case let .missingValue(command, option):
            "\(command): option '\(option)' needs a value"
        case let .unexpectedValue(command, option):
            "\(command): option '\(option)' takes no value"
        case let .repeated(command, option):
            "\(command): option '\(option)' given more than once"
        case let .badValue(command, option, value, expected):
            "\(command): bad value '\(value)' for '\(option)': expected \(expected)"
        case let .conflicting(command, options):
            "\(command): options \(options.map { "'\($0)'" }.joined(separator: " and ")) cannot be used together"
        case let .wrongArgumentCount(command, expected):
            "\(command): expected \(expected) (see 'skylift \(command) --help')"
        case let .invalid(command, message):
            "\(command): \(message)"
        }
    }
}

/// Parses `arguments` (after the command name) against `spec`.
///
/// Accepts `--name value`, `--name=value`, flags, `--` to end options, and `-h`/`--help` anywhere.
public func parseArguments(_ arguments: [String], for spec: CommandSpec) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments(command: spec.name)
    var index = 0
    var optionsEnded = false
    while index < arguments.count {
        let arg = arguments[index]
        index += 1
        if optionsEnded || !arg.hasPrefix("-") || arg == "-" {
            parsed.positional(arg)
            if let after = spec.passThroughAfter, parsed.positionals.count == after {
                parsed.passThrough(Array(arguments[index...]))
                break
            }
            continue
        }
        if arg == "--" { optionsEnded = true; continue }
        if arg == "-h" || arg == "--help" { parsed.requestHelp(); continue }
        var name = arg
        var inline: String?
        if let eq = arg.firstIndex(of: "=") {
            name = String(arg[..<eq])
            inline = String(arg[arg.index(after: eq)...])
        }
        guard let option = spec.options.first(where: { $0.name == name }) else {
            throw .unknownOption(command: spec.name, option: name)
        }
        if option.valueName == nil {
            if inline != nil { throw .unexpectedValue(command: spec.name, option: name) }
            parsed.set(name)
            continue
        }
        let value: String
        if let inline {
            value = inline
        } else {
            guard index < arguments.count else { throw .missingValue(command: spec.name, option: name) }
            value = arguments[index]
            index += 1
        }
        if !option.repeatable && parsed.values[name] != nil { throw .repeated(command: spec.name, option: name) }
        parsed.add(name, value)
    }
    if !parsed.helpRequested && !spec.positionals.contains(parsed.positionals.count) {
        let range = spec.positionals
        let expected: String
        if range.upperBound == 0 {
            expected = "no arguments, got '\(parsed.positionals.first ?? "")'"
        } else if range.upperBound == Int.max {
            expected = "at least \(range.lowerBound) argument\(range.lowerBound == 1 ? "" : "s")"
        } else if range.lowerBound == range.upperBound {
            expected = "\(range.lowerBound) argument\(range.lowerBound == 1 ? "" : "s"), got \(parsed.positionals.count)"
        } else {
            expected = "\(range.lowerBound) to \(range.upperBound) arguments, got \(parsed.positionals.count)"
        }
        throw .wrongArgumentCount(command: spec.name, expected: expected)
    }
    return parsed
}

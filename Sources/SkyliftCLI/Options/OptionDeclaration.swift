/// One option of a command's `Options` struct: the `OptionSpec` (spelling, value name, help, completion) that
/// `--help`, shell completion and service units are generated from, and the property its value is parsed into.
/// Commands read options through these properties, so an option name that is not declared cannot compile.
public struct OptionDeclaration<Options>: Sendable {
    public let spec: OptionSpec
    /// The property the value is stored in, so code can name the option by it (`exclusive`, `name(_:)`).
    let key: OptionKey
    /// Stores the values given on the command line (in order; empty when absent) into the struct.
    let store: @Sendable (inout Options, [String], _ command: String) throws(UsageError) -> Void
    /// Whether the parsed struct holds a value for this option.
    let given: @Sendable (Options) -> Bool

    /// A flag: true when given.
    static func flag(_ name: String, help: String, _ key: WritableKeyPath<Options, Bool> & Sendable) -> Self {
        OptionDeclaration(spec: OptionSpec(name, help: help), key: OptionKey(key), store: { options, values, _ in
            options[keyPath: key] = !values.isEmpty
        }, given: { $0[keyPath: key] })
    }

    /// An option taking one value, kept as text.
    static func value(_ name: String, _ valueName: String, help: String, choices: [String] = [],
                      _ key: WritableKeyPath<Options, String?> & Sendable) -> Self {
        value(name, valueName, help: help, choices: choices, key, as: .text)
    }

    /// An option taking one value, converted by `parser`; a value it refuses is a usage error naming the option.
    static func value<Value>(_ name: String, _ valueName: String, help: String, choices: [String] = [],
                             _ key: WritableKeyPath<Options, Value?> & Sendable, as parser: ValueParser<Value>) -> Self {
        OptionDeclaration(spec: OptionSpec(name, valueName, help: help, choices: choices), key: OptionKey(key), store: { options, values, command throws(UsageError) in
            guard let raw = values.last else { return }
            guard let value = parser.convert(raw) else {
                throw .badValue(command: command, option: name, value: raw, expected: parser.expected)
            }
            options[keyPath: key] = value
        }, given: { $0[keyPath: key] != nil })
    }

    /// A repeatable option: every value, in command-line order.
    static func repeated(_ name: String, _ valueName: String, help: String, _ key: WritableKeyPath<Options, [String]> & Sendable) -> Self {
        OptionDeclaration(spec: OptionSpec(name, valueName, help: help, repeatable: true), key: OptionKey(key), store: { options, values, _ in
            options[keyPath: key] = values
        }, given: { !$0[keyPath: key].isEmpty })
    }

    /// The same option with another help text (one command words it for its own purpose).
    func help(_ text: String) -> Self {
        var spec = self.spec
        spec.help = text
        return OptionDeclaration(spec: spec, key: key, store: store, given: given)
    }

    /// The same option stored into the group at `key` of a larger struct.
    func within<Outer>(_ key: WritableKeyPath<Outer, Options> & Sendable) -> OptionDeclaration<Outer> {
        let store = self.store, given = self.given
        // Appending to a key path of the group's own type cannot fail.
        let path = OptionKey((key as AnyKeyPath).appending(path: self.key.path) ?? key)
        return OptionDeclaration<Outer>(spec: spec, key: path, store: { outer, values, command throws(UsageError) in
            try store(&outer[keyPath: key], values, command)
        }, given: { given($0[keyPath: key]) })
    }
}

extension Array {
    /// The same options with `help` as the help text of the one stored at `key`.
    func help<Group>(_ key: PartialKeyPath<Group>, _ help: String) -> [OptionDeclaration<Group>] where Element == OptionDeclaration<Group> {
        map { $0.key == OptionKey(key) ? $0.help(help) : $0 }
    }

    /// Only the options stored at `keys`, for a command that takes part of a group.
    func only<Group>(_ keys: PartialKeyPath<Group>...) -> [OptionDeclaration<Group>] where Element == OptionDeclaration<Group> {
        filter { declaration in keys.contains { OptionKey($0) == declaration.key } }
    }

    /// A group's declarations stored into the group at `key` of a larger struct.
    func within<Group, Outer>(_ key: WritableKeyPath<Outer, Group> & Sendable) -> [OptionDeclaration<Outer>]
    where Element == OptionDeclaration<Group> {
        map { $0.within(key) }
    }
}

/// The property an option is stored in, compared by key path equality.
// @unchecked: a key path is an immutable value once made; the standard library only lacks the annotation.
struct OptionKey: Hashable, @unchecked Sendable {
    let path: AnyKeyPath

    init(_ path: AnyKeyPath) { self.path = path }
}

/// How an option's text becomes a value, and what a refused text was expected to be.
struct ValueParser<Value>: Sendable {
    var expected: String
    var convert: @Sendable (String) -> Value?

    static var text: ValueParser<String> { ValueParser<String>(expected: "text") { $0 } }

    static func integer(_ range: ClosedRange<Int>) -> ValueParser<Int> {
        ValueParser<Int>(expected: "a whole number from \(range.lowerBound) to \(range.upperBound)") { raw in
            Int(raw).flatMap { range.contains($0) ? $0 : nil }
        }
    }

    /// A duration: a number with an optional unit, `s` (the default), `m`, `h` or `d` (`90`, `30m`, `2h`).
    static func duration(_ range: ClosedRange<Double>) -> ValueParser<Double> {
        ValueParser<Double>(expected: "a duration such as 90s, 30m or 2h (at most \(Int(range.upperBound)) s)") { raw in
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            let unit = raw.last.flatMap { units[$0] }
            guard let v = Double(unit == nil ? raw : String(raw.dropLast())), v.isFinite else { return nil }
            let seconds = v * (unit ?? 1)
            return range.contains(seconds) ? seconds : nil
        }
    }

    /// Seconds, fractions allowed, with an optional `s` suffix.
    static func seconds(_ range: ClosedRange<Double>) -> ValueParser<Double> {
        ValueParser<Double>(expected: "seconds from \(range.lowerBound) to \(range.upperBound)") { raw in
            let trimmed = raw.hasSuffix("s") ? String(raw.dropLast()) : raw
            guard let v = Double(trimmed), v.isFinite, range.contains(v) else { return nil }
            return v
        }
    }
}

/// A command's options, or a group of options several commands share, parsed once from the command line
/// into typed properties.
public protocol CommandOptions: Sendable {
    /// Every option not given.
    init()
    /// Every option, in help order.
    static var declarations: [OptionDeclaration<Self>] { get }
}

extension CommandOptions {
    /// The options' specs, in help order, for `CommandSpec.options`.
    static var specs: [OptionSpec] { declarations.map(\.spec) }

    /// The typed options of a command line already checked against `specs`.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        self.init()
        for declaration in Self.declarations {
            let name = declaration.spec.name
            let values = declaration.spec.valueName == nil ? (arguments.flag(name) ? [""] : []) : arguments.all(name)
            try declaration.store(&self, values, arguments.command)
        }
    }

    /// Fails when more than one of the options stored at `keys` was given, naming them in the order listed.
    func exclusive(_ keys: PartialKeyPath<Self>..., command: String) throws(UsageError) {
        let given = keys.compactMap { key in Self.declarations.first { $0.key == OptionKey(key) } }.filter { $0.given(self) }.map(\.spec.name)
        if given.count > 1 { throw .conflicting(command: command, options: given) }
    }

    /// The spelling of the option stored at `key`, for messages.
    static func name(_ key: PartialKeyPath<Self>) -> String {
        declarations.first { $0.key == OptionKey(key) }?.spec.name ?? "option"
    }
}

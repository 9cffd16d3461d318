import SkyliftCore

/// `--quiet` and `--verbose`: the level of a long-running command's log on standard error, and whether its
/// access log (one line per request, a stream of its own) is written at all.
struct LogOptions: CommandOptions {
    var quiet = false
    var verbose = false

    static let declarations: [OptionDeclaration<LogOptions>] = [
        .flag("--quiet", help: "no request log on stderr; only warnings and errors", \.quiet),
        .flag("--verbose", help: "also log details such as cache evictions", \.verbose),
    ]

    /// `warning` under `--quiet`, `debug` under `--verbose`, else `info`.
    func level(command: String) throws(UsageError) -> LogLevel {
        try exclusive(\.quiet, \.verbose, command: command)
        return quiet ? .warning : verbose ? .debug : .info
    }

    /// The command's event log at `level(command:)`, and its access log (disabled under `--quiet`), both
    /// writing to the command's standard error.
    func loggers(label: String, context: CommandContext, command: String) throws(UsageError) -> (events: Logger, access: Logger) {
        let errors = context.errors
        let events = Logger(label: label, level: try level(command: command)) { errors.line($0) }
        let access = quiet ? Logger.disabled(label: "access") : Logger(label: "access", level: .info) { errors.line($0) }
        return (events, access)
    }
}

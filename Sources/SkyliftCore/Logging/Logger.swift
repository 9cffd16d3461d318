/// What a module logs through: a label, a level below which nothing is passed on, metadata added to every
/// line, and the `LogHandler` that writes lines out. A value, injected through configurations; a logger
/// that is `disabled` (or whose level a line does not reach) never builds the line's text.
///
/// Messages are for people; they must not carry secrets. Values that may (URLs, header lists) go through
/// `Redaction` before they reach a message or metadata.
public struct Logger: Sendable {
    public var label: String
    /// The least severe level passed on.
    public var level: LogLevel
    /// Added to every line this logger writes (a line's own metadata wins on equal keys).
    public var metadata: [String: String]
    /// Nil for a logger that writes nothing.
    let handler: (any LogHandler)?

    public init(label: String, level: LogLevel = .info, metadata: [String: String] = [:], handler: any LogHandler) {
        self.label = label
        self.level = level
        self.metadata = metadata
        self.handler = handler
    }

    /// A logger handing each line to `lines` (a `LineLogHandler`).
    public init(label: String, level: LogLevel = .info, lines: @escaping @Sendable (String) -> Void) {
        self.init(label: label, level: level, handler: LineLogHandler(lines))
    }

    /// A logger that writes nothing and formats nothing: the default where no logger is given.
    public static func disabled(label: String = "") -> Logger {
        Logger(label: label, level: .critical, metadata: [:], nothing: ())
    }

    private init(label: String, level: LogLevel, metadata: [String: String], nothing: Void) {
        self.label = label
        self.level = level
        self.metadata = metadata
        handler = nil
    }

    /// Whether a line at `level` would be written; check it before costly work that only feeds a line.
    public func isEnabled(_ level: LogLevel) -> Bool { handler != nil && level >= self.level }

    /// Writes `message` at `level` when enabled; `message` is not evaluated otherwise.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, metadata: [String: String] = [:]) {
        guard let handler, level >= self.level else { return }
        let merged = metadata.isEmpty ? self.metadata : self.metadata.merging(metadata) { _, line in line }
        handler.write(LogRecord(label: label, level: level, message: message(), metadata: merged))
    }

    public func trace(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.trace, message(), metadata: metadata) }
    public func debug(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.debug, message(), metadata: metadata) }
    public func info(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.info, message(), metadata: metadata) }
    public func notice(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.notice, message(), metadata: metadata) }
    public func warning(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.warning, message(), metadata: metadata) }
    public func error(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.error, message(), metadata: metadata) }
    public func critical(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.critical, message(), metadata: metadata) }
}

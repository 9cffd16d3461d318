import Foundation
import Synchronization

/// One line a `Logger` passes on.
public struct LogRecord: Sendable, Equatable {
    public var label: String
    public var level: LogLevel
    public var message: String
    public var metadata: [String: String]

    public init(label: String, level: LogLevel, message: String, metadata: [String: String] = [:]) {
        self.label = label
        self.level = level
        self.message = message
        self.metadata = metadata
    }

    /// The line as handlers print it: the message, then ` key=value` per metadata entry in key order. Metadata
    /// values are escaped (`LogText`) so a line stays one printable line, and those under a secret-looking key
    /// (`Redaction.isSecretHeader`/`isSecretParameter`) are replaced, so a secret cannot slip into a log by
    /// metadata. No level or time: the formats that scripts and tests read stay as they were.
    public var line: String {
        guard !metadata.isEmpty else { return message }
        let fields = metadata.sorted { $0.key < $1.key }.map { key, value in
            let shown = Redaction.isSecretHeader(key) || Redaction.isSecretParameter(key) ? Redaction.placeholder : LogText.escaped(value)
            return "\(LogText.escaped(key))=\(shown)"
        }
        return ([message] + fields).joined(separator: " ")
    }
}

/// Where a `Logger`'s lines go. Called from any thread, so it must be safe to share.
public protocol LogHandler: Sendable {
    func write(_ record: LogRecord)
}

/// Hands each record as one text line (`LogRecord.line`, without a newline) to `output`: standard error, or
/// any sink the caller injects (a command's captured error stream).
public struct LineLogHandler: LogHandler {
    let output: @Sendable (String) -> Void

    public init(_ output: @escaping @Sendable (String) -> Void) { self.output = output }

    /// Writes to the process's standard error, line and newline in one write so lines from threads do not
    /// interleave.
    public static func standardError() -> LineLogHandler {
        LineLogHandler { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    public func write(_ record: LogRecord) { output(record.line) }
}

/// Keeps every record in memory, for tests that check what was logged.
public final class CapturingLogHandler: LogHandler {
    private let records = Mutex<[LogRecord]>([])

    public init() {}

    public func write(_ record: LogRecord) { records.withLock { $0.append(record) } }

    /// Every record written so far, oldest first.
    public var all: [LogRecord] { records.withLock { $0 } }
    /// Their lines, as `LineLogHandler` would print them.
    public var lines: [String] { all.map(\.line) }
}

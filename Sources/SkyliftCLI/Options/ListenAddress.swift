/// A `HOST:PORT` given to `--listen`.
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `127.0.0.1:8421`, `[::1]:8421`, `localhost:0`; `option` names the flag in errors.
    public init(parsing text: String, option: String, command: String) throws(UsageError) {
        let bad = UsageError.badValue(command: command, option: option, value: text, expected: Self.form)
        var hostPart: Substring
        var portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { throw bad }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { throw bad }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard !hostPart.isEmpty, let port = UInt16(portPart) else { throw bad }
        self.host = String(hostPart)
        self.port = port
    }

    /// The parser of `--listen` values, so each command's declaration checks them alike.
    static var parser: ValueParser<ListenAddress> {
        ValueParser(expected: form) { text in try? ListenAddress(parsing: text, option: "", command: "") }
    }

    /// What a listen address looks like, for messages.
    static let form = "HOST:PORT, e.g. 127.0.0.1:8421 or [::1]:8421"

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

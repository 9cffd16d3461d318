import Foundation

/// A systemd user unit that runs one `skylift` command and restarts it when it fails.
struct SystemdUnit {
    /// `skylift-serve.service`, `skylift-watch-<escaped folder>.service`.
    var name: String
    var description: String
    /// The program and its arguments, all absolute where they are paths.
    var command: [String]
    /// Variables the command sees, in order. Never secrets: those stay in files the command reads.
    var environment: [(name: String, value: String)]

    /// The unit file. Fails when a value holds a control character, which no unit line can carry.
    func text() throws(SystemdUnitError) -> String {
        for value in [description] + command + environment.map(\.value) where value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
            throw .controlCharacter(value.debugDescription)
        }
        var lines = [
            "# Written by `skylift service install`; remove it with `skylift service uninstall` and the same arguments.",
            "[Unit]",
            "Description=\(Self.specifiersEscaped(description))",
            "",
            "[Service]",
            "Type=exec",
            "ExecStart=" + command.map(Self.execQuoted).joined(separator: " "),
        ]
        lines += environment.map { "Environment=" + Self.environmentQuoted("\($0.name)=\($0.value)") }
        lines += [
            // skylift exits 0 on SIGTERM (what `systemctl stop` sends), non-zero on a failure worth a restart.
            "Restart=on-failure",
            "RestartSec=5s",
            "",
            "[Install]",
            "WantedBy=default.target",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `path` escaped as `systemd-escape --path` does: outer slashes dropped, inner ones become `-`, and every
    /// byte outside `[A-Za-z0-9:_.]` (and a leading `.`) becomes `\xNN`. The root folder is `-`.
    static func escapedPath(_ path: String) -> String {
        let trimmed = path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        if trimmed.isEmpty { return "-" }
        var escaped = ""
        for (index, byte) in trimmed.utf8.enumerated() {
            let character = Character(Unicode.Scalar(byte))
            let plain = byte < 0x80 && (character.isLetter || character.isNumber || character == ":" || character == "_" || character == ".")
            if byte == UInt8(ascii: "/") {
                escaped.append("-")
            } else if plain && !(index == 0 && character == ".") {
                escaped.append(character)
            } else {
                escaped += String(format: "\\x%02x", byte)
            }
        }
        return escaped
    }

    /// One ExecStart word: double-quoted, with `\` and `"` escaped, `%` (specifiers) and `$` (variables) doubled.
    static func execQuoted(_ word: String) -> String {
        "\"" + specifiersEscaped(word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "$", with: "$$")) + "\""
    }

    /// One Environment= assignment: double-quoted; `$` has no meaning there, `%` still does.
    static func environmentQuoted(_ assignment: String) -> String {
        "\"" + specifiersEscaped(assignment.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")) + "\""
    }

    static func specifiersEscaped(_ text: String) -> String { text.replacingOccurrences(of: "%", with: "%%") }
}

/// Why a unit cannot be written.
enum SystemdUnitError: Error, CustomStringConvertible {
    case controlCharacter(String)

    var description: String {
        switch self {
        case let .controlCharacter(value): "\(value) holds a control character, which a systemd unit cannot carry"
        }
    }
}

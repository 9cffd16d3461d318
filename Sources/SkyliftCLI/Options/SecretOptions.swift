import Foundation
import SkyliftCore
import SkyliftSystem

/// Where a command's secrets come from, so none has to be on the command line (where every local user reads
/// it in `/proc/<pid>/cmdline`): `--token`, `--token-file FILE`, `$SKYLIFT_TOKEN`, `--header` and
/// `--header-file FILE`. Files must be private to their owner (see `PrivateFiles.readSecret`). Error
/// messages name the option, the file and the line, never a value.
enum SecretOptions {
    /// The environment variable read when neither `--token` nor `--token-file` is given.
    static let tokenVariable = "SKYLIFT_TOKEN"

    /// The token from `--token`, else `--token-file`, else `$SKYLIFT_TOKEN` (when `useEnvironment`); nil when
    /// none is given. The two options exclude each other.
    static func token(_ options: TokenOptions, environment: [String: String], command: String,
                      useEnvironment: Bool = true) throws -> String? {
        try options.exclusive(\.token, \.tokenFile, command: command)
        if let given = options.token {
            return try checkedToken(given, source: "option '\(TokenOptions.name(\.token))'", command: command)
        }
        if let file = options.tokenFile {
            let text = String(decoding: try readSecret(file, noun: "token file"), as: UTF8.self)
            return try checkedToken(text.trimmingCharacters(in: .whitespacesAndNewlines), source: "token file \(file)", command: command)
        }
        guard useEnvironment, let value = environment[tokenVariable] else { return nil }
        return try checkedToken(value.trimmingCharacters(in: .whitespacesAndNewlines), source: "$\(tokenVariable)", command: command)
    }

    /// Headers from every `--header` value, then every line of `--header-file` (blank lines and lines
    /// starting with `#` skipped).
    static func headers(_ options: HeaderOptions, command: String) throws -> HTTPHeaders {
        var headers = try fields(options.headers, option: HeaderOptions.name(\.headers), command: command)
        if let file = options.headerFile {
            let text = String(decoding: try readSecret(file, noun: "header file"), as: UTF8.self)
            // Character.isNewline: "\r\n" is one Character, so splitting on "\n" alone would miss it.
            for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                guard let field = parseField(trimmed) else {
                    throw CommandFailure("header file \(file), line \(index + 1): expected 'NAME: VALUE' with a valid name and no control characters")
                }
                headers.add(field.name, field.value)
            }
        }
        return headers
    }

    /// Parses `Name: value` values given to `option`. The value is not echoed in errors: it may be a secret.
    static func fields(_ values: [String], option: String, command: String) throws(UsageError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for value in values {
            guard let field = parseField(value) else {
                throw .invalid(command: command, message: "option '\(option)' needs 'NAME: VALUE' with a valid name and no control characters")
            }
            headers.add(field.name, field.value)
        }
        return headers
    }

    /// `Name: value`; nil when the name is not an HTTP token or the value holds a control character.
    static func parseField(_ line: String) -> (name: String, value: String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        let tchar = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(tchar.contains),
              !value.unicodeScalars.contains(where: isControl) else { return nil }
        return (name, value)
    }

    private static func checkedToken(_ token: String, source: String, command: String) throws -> String {
        guard !token.isEmpty else { throw UsageError.invalid(command: command, message: "\(source) holds an empty token") }
        guard !token.unicodeScalars.contains(where: { isControl($0) || $0 == " " }) else {
            throw UsageError.invalid(command: command, message: "\(source) holds a token with spaces or control characters")
        }
        return token
    }

    private static func readSecret(_ path: String, noun: String) throws -> [UInt8] {
        do {
            return try PrivateFiles.readSecret(path)
        } catch {
            throw CommandFailure("\(noun) \(error)")
        }
    }

    private static func isControl(_ c: Unicode.Scalar) -> Bool { c.value < 0x20 || c.value == 0x7f }
}

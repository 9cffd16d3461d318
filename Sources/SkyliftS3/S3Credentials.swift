import Foundation

/// AWS access keys for signing S3 requests.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible {
    /// The access key ID (not secret; named in messages).
    public var accessKeyID: String
    /// The secret access key: never logged.
    public var secretAccessKey: String
    /// A temporary credential's session token, sent as `x-amz-security-token`.
    public var sessionToken: String?

    /// Keys given directly.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The key ID only: the secret and token never go into logs or errors.
    public var description: String { "S3Credentials(\(accessKeyID))" }
}

/// The shared AWS config and credentials files (`~/.aws/config`, `~/.aws/credentials`), read the way the AWS
/// tools read them: INI sections, `[profile NAME]` in config, `[NAME]` in credentials.
struct AWSSharedFiles {
    /// Section name → key → value.
    typealias Sections = [String: [String: String]]

    var config: Sections = [:]
    var credentials: Sections = [:]

    /// Reads the files named by `AWS_CONFIG_FILE` / `AWS_SHARED_CREDENTIALS_FILE`, or those under `home`/.aws.
    /// A missing file is empty; an unreadable one is an error naming it.
    init(environment: [String: String], home: URL) throws {
        let aws = home.appendingPathComponent(".aws")
        let configPath = environment["AWS_CONFIG_FILE"] ?? aws.appendingPathComponent("config").path
        let credentialsPath = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? aws.appendingPathComponent("credentials").path
        config = try Self.read(configPath)
        credentials = try Self.read(credentialsPath)
    }

    init() {}

    /// `key` for `profile`: credentials file first, then config file.
    func value(_ key: String, profile: String) -> String? {
        credentials[profile]?[key] ?? config[profile == "default" ? "default" : "profile \(profile)"]?[key]
            ?? (profile == "default" ? config["profile default"]?[key] : nil)
    }

    func hasProfile(_ profile: String) -> Bool {
        credentials[profile] != nil || config["profile \(profile)"] != nil || (profile == "default" && config["default"] != nil)
    }

    static func read(_ path: String) throws -> Sections {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw S3Error.configuration("cannot read \(path): \(error.localizedDescription)")
        }
        return parse(String(decoding: data, as: UTF8.self))
    }

    /// INI as the AWS tools write it; indented lines (nested `s3 =` blocks) and comments are skipped.
    static func parse(_ text: String) -> Sections {
        var sections: Sections = [:]
        var current: String?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            if let first = rawLine.first, first == " " || first == "\t" { continue }
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                current = name.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                if let current, sections[current] == nil { sections[current] = [:] }
                continue
            }
            guard let current, let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            sections[current]?[key] = value
        }
        return sections
    }
}

import Foundation

/// Turns a checked `skylift watch|serve|proxy` command line into a `SystemdUnit`: the running binary by its
/// absolute path, arguments in spec order with paths made absolute, and the XDG folders this shell resolves,
/// so the service finds the same store, state and cache as the command run by hand.
struct ServiceUnitBuilder {
    var spec: CommandSpec
    var arguments: ParsedArguments
    var environment: [String: String]

    /// AWS settings that are not secret: copied so an s3:// service reaches the same endpoint and profile.
    static let passedVariables = ["AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
                                  "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"]
    /// Secrets that are never copied.
    static let secretVariables = ["SKYLIFT_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"]

    func unit() throws -> SystemdUnit {
        var words = [try Self.executable(), spec.name]
        for (index, value) in arguments.positionals.enumerated() {
            words.append(absolute(value, spec.positionalCompletion(index)))
        }
        for option in spec.options {
            if option.valueName == nil {
                if arguments.flag(option.name) { words.append(option.name) }
                continue
            }
            for value in arguments.all(option.name) {
                words += [option.name, absolute(value, option.valueCompletion)]
            }
        }
        let name: String
        let description: String
        if spec.name == "watch" {
            let dir = words[2]
            name = "skylift-watch-\(SystemdUnit.escapedPath(dir)).service"
            description = "Skylift: back up \(dir) as its files settle"
        } else {
            name = "skylift-\(spec.name).service"
            description = "Skylift: \(spec.summary)"
        }
        // systemd refuses unit names longer than 255 bytes.
        guard name.utf8.count <= 255 else {
            throw CommandFailure("the unit name for \(words[2]) would be \(name.utf8.count) bytes; systemd allows 255")
        }
        return SystemdUnit(name: name, description: description, command: words, environment: variables())
    }

    /// The XDG base folders and where they are when unset (or not absolute, which the spec says to ignore).
    static let xdgFolders = [("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                             ("XDG_STATE_HOME", ".local/state"), ("XDG_CACHE_HOME", ".cache")]

    /// The XDG folders as this shell resolves them, then the non-secret AWS settings that are set.
    func variables() -> [(name: String, value: String)] {
        var result = Self.xdgFolders.map { (name: $0.0, value: Self.xdg($0.0, environment)) }
        for name in Self.passedVariables {
            if let value = environment[name], !value.isEmpty { result.append((name: name, value: value)) }
        }
        return result
    }

    /// `$name` when absolute, else its default under `$HOME`.
    static func xdg(_ name: String, _ environment: [String: String]) -> String {
        if let value = environment[name], value.hasPrefix("/") { return value }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/" + (xdgFolders.first { $0.0 == name }?.1 ?? "")
    }

    /// `$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`.
    static func unitDirectory(_ environment: [String: String]) -> URL {
        URL(fileURLWithPath: xdg("XDG_CONFIG_HOME", environment)).appendingPathComponent("systemd/user")
    }

    /// This binary, by the path the kernel ran it from, so the unit starts the same build.
    static func executable() throws -> String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), path.hasPrefix("/") {
            return path
        }
        guard let first = CommandLine.arguments.first, first.contains("/") else {
            throw CommandFailure("cannot tell where this skylift binary is; run it by its path")
        }
        return URL(fileURLWithPath: first).standardizedFileURL.path
    }

    private func absolute(_ value: String, _ completion: ValueCompletion) -> String {
        guard completion == .files || completion == .directories else { return value }
        return URL(fileURLWithPath: value).standardizedFileURL.path
    }
}

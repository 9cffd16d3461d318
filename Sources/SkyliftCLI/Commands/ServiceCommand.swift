import Foundation
import SkyliftSystem

/// `skylift service install|uninstall watch|serve|proxy [ARGS...]`: a systemd user unit that starts the command
/// at login and restarts it after a failure.
public enum ServiceCommand: Command {
    /// The commands that can run as a service.
    static var services: [any Command.Type] { [WatchCommand.self, ServeCommand.self, ProxyCommand.self] }

    /// Options whose value is a secret, with the option that reads it from a file instead. A unit file is
    /// readable by the user's other programs and kept in backups, so secrets never go into it.
    static let secretOptions: [(option: String, instead: String)] = [
        (TokenOptions.name(\.token), TokenOptions.name(\.tokenFile)),
        (HeaderOptions.name(\.headers), HeaderOptions.name(\.headerFile)),
    ]

    public static let spec = CommandSpec(
        name: "service",
        summary: "install or remove a systemd user service running watch, serve or proxy",
        usage: "service install|uninstall watch|serve|proxy [ARGS...]",
        details: """
        Write a systemd user unit (in $XDG_CONFIG_HOME/systemd/user, else ~/.config/systemd/user)
        that runs `skylift watch|serve|proxy ARGS...` with Restart=on-failure and this shell's XDG
        folders, then print the systemctl line that starts it now and at every login. ARGS are
        checked as the command checks them; paths become absolute. Secrets never go into the
        unit: --token and --header are refused (use --token-file, --header-file), and tokens or
        AWS keys in the environment are not copied. Units are named skylift-serve.service,
        skylift-proxy.service and skylift-watch-<DIR escaped as by systemd-escape --path>.service.
        `service uninstall` with the same arguments removes the unit.
        """,
        options: Options.specs,
        positionals: 2...2,
        positionalCompletions: [.words(["install", "uninstall"]), .words(services.map { $0.spec.name })],
        passThroughAfter: 2,
        examples: [
            "skylift service install watch ~/Pictures --settle 5",
            "skylift service install serve --root ~/media --token-file ~/.config/skylift/token",
            "skylift service uninstall watch ~/Pictures",
        ])

    public typealias Options = NoOptions

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let (action, kind) = (invocation.positionals[0], invocation.positionals[1])
        guard ["install", "uninstall"].contains(action) else {
            throw UsageError.badValue(command: spec.name, option: "ACTION", value: action, expected: "install or uninstall")
        }
        guard let target = services.first(where: { $0.spec.name == kind }) else {
            throw UsageError.badValue(command: spec.name, option: "COMMAND", value: kind, expected: "watch, serve or proxy")
        }
        let parsed = try parseArguments(invocation.passedThrough, for: target.spec)
        if parsed.helpRequested {
            context.output.write(spec.helpText)
            return 0
        }
        for secret in secretOptions where parsed.isGiven(secret.option) {
            throw UsageError.invalid(command: spec.name, message: "'\(secret.option)' would write a secret into the unit file; "
                                     + "put it in a file (mode 0600) and use '\(secret.instead) FILE' instead")
        }
        // Values are checked as the command checks them, so a unit never starts with options it refuses.
        try target.check(parsed)
        let unit = try ServiceUnitBuilder(spec: target.spec, arguments: parsed, environment: context.environment).unit()
        let directory = ServiceUnitBuilder.unitDirectory(context.environment)
        let file = directory.appendingPathComponent(unit.name)
        if action == "uninstall" {
            return try uninstall(unit.name, file: file, directory: directory, context: context)
        }
        if kind == "watch" {
            let dir = unit.command[2]
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandFailure("\(dir) is not a folder")
            }
        }
        let text: String
        do {
            text = try unit.text()
        } catch {
            throw CommandFailure("cannot write a unit: \(error)")
        }
        try write(text, to: file)
        context.output.line("skylift: wrote \(file.path)")
        context.output.line("start it now and at every login:")
        context.output.line("  systemctl --user daemon-reload && systemctl --user enable --now \(shellQuoted(unit.name))")
        context.output.line("(to keep it running while you are logged out: loginctl enable-linger \"$USER\")")
        let unsent = ServiceUnitBuilder.secretVariables.filter { context.environment[$0] != nil }
        if !unsent.isEmpty {
            context.errors.line("skylift service: note: \(unsent.joined(separator: ", ")) not copied into the unit (secrets); "
                                + "the service reads credentials from files such as ~/.aws/credentials")
        }
        return 0
    }

    /// Removes the unit and the link `systemctl enable` made for it.
    static func uninstall(_ name: String, file: URL, directory: URL, context: CommandContext) throws -> Int32 {
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw CommandFailure("no unit \(name) in \(directory.path)")
        }
        let wanted = directory.appendingPathComponent("default.target.wants").appendingPathComponent(name)
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: wanted.path)) != nil {
            try FileManager.default.removeItem(at: wanted)
        }
        do {
            try FileManager.default.removeItem(at: file)
        } catch {
            throw CommandFailure("cannot remove \(file.path): \(error.localizedDescription)")
        }
        context.output.line("skylift: removed \(file.path)")
        context.output.line("if it is running, stop it and let systemd forget it:")
        context.output.line("  systemctl --user stop \(shellQuoted(name)); systemctl --user daemon-reload")
        return 0
    }

    /// Replaces the unit through ``AtomicFile`` (temp file, fsync, rename, fsync of the folder): systemd never
    /// reads it half-written, and a crash or power cut leaves the old unit or the new one.
    static func write(_ text: String, to file: URL) throws {
        do {
            try AtomicFile.replace(file.path, with: Array(text.utf8), permissions: 0o644)
        } catch {
            throw CommandFailure("cannot write \(file.path): \(error.errno?.description ?? error.description)")
        }
    }
}

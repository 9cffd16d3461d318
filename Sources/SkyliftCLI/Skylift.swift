import Foundation

/// The `skylift` tool: command table, top-level help and dispatch.
public enum Skylift {
    /// Every subcommand, in help order.
    public static var commands: [any Command.Type] {
        [
            ServeCommand.self,
            ProxyCommand.self,
            UploadCommand.self,
            CopyCommand.self,
            DownloadCommand.self,
            WatchCommand.self,
            StatusCommand.self,
            ScrubCommand.self,
            ShareCommand.self,
            SigninCommand.self,
            ServiceCommand.self,
            CompletionsCommand.self,
        ]
    }

    /// The exact text of `skylift --help`.
    public static var helpText: String {
        let width = commands.map { $0.spec.name.count }.max() ?? 8
        var lines = [
            "usage: skylift <command> [options]",
            "",
            "Skylift moves large media between devices and cloud storage.",
            "",
            "commands:",
        ]
        for c in commands {
            lines.append("  " + c.spec.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + c.spec.summary)
        }
        lines.append("")
        lines.append("Run 'skylift <command> --help' for a command's options.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Runs the tool with `arguments` (without the program name) and returns the exit status. `commit` is the
    /// git commit the binary was built from (stamped in by the build), shown by `--version`.
    public static func main(_ arguments: [String], context: CommandContext = .process(), commit: String = "unknown") async -> Int32 {
        guard let name = arguments.first, name != "-h", name != "--help", name != "help" else {
            if arguments.isEmpty {
                context.errors.write(helpText)
                return 2
            }
            if arguments.count > 1, let c = commands.first(where: { $0.spec.name == arguments[1] }) {
                context.output.write(c.spec.helpText)
            } else {
                context.output.write(helpText)
            }
            return 0
        }
        if name == "--version" {
            context.output.line("skylift \(version) (\(commit))")
            return 0
        }
        guard let command = commands.first(where: { $0.spec.name == name }) else {
            context.errors.line("skylift: " + UsageError.unknownCommand(name).description)
            return 2
        }
        do {
            let parsed = try parseArguments(Array(arguments.dropFirst()), for: command.spec)
            if parsed.helpRequested {
                context.output.write(command.spec.helpText)
                return 0
            }
            return try await command.run(parsed: parsed, context: context)
        } catch let error as UsageError {
            context.errors.line("skylift " + error.description)
            return 2
        } catch let error as CommandFailure {
            context.errors.line("skylift \(name): \(error.message)")
            return error.exitCode
        } catch {
            context.errors.line("skylift \(name): \(error)")
            return 1
        }
    }

    public static let version = "0.1.0"

    /// Sets up the process for `arguments`, first thing: a command that stops on a signal gets SIGINT and SIGTERM
    /// caught at once (``ShutdownSignal/catchSignals()``), so one sent while it starts is neither lost nor fatal.
    public static func prepareProcess(_ arguments: [String]) {
        if let name = arguments.first, commands.first(where: { $0.spec.name == name })?.stopsOnSignal == true {
            ShutdownSignal.catchSignals()
        }
    }
}

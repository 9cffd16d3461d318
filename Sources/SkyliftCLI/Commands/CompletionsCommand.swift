/// `skylift completions bash|zsh|fish`: prints a completion script built from every command's option spec.
public enum CompletionsCommand: Command {
    public static let spec = CommandSpec(
        name: "completions",
        summary: "print shell completion for bash, zsh or fish",
        usage: "completions bash|zsh|fish",
        details: """
        Print a completion script for the shell, generated from the same option lists as --help:
        commands, every option, folders for DIR, files for FILE, and fixed choices.
        """,
        options: Options.specs,
        positionals: 1...1,
        positionalCompletions: [.words(CompletionScript.Shell.allCases.map(\.rawValue))],
        examples: [
            "skylift completions bash > ~/.local/share/bash-completion/completions/skylift",
            "skylift completions zsh > ~/.zfunc/_skylift     # with fpath+=(~/.zfunc) before compinit",
            "skylift completions fish > ~/.config/fish/completions/skylift.fish",
        ])

    public typealias Options = NoOptions

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let name = invocation.positionals[0]
        guard let shell = CompletionScript.Shell(rawValue: name) else {
            throw UsageError.badValue(command: spec.name, option: "SHELL", value: name, expected: "bash, zsh or fish")
        }
        context.output.write(CompletionScript(commands: Skylift.commands.map { $0.spec }).text(for: shell))
        return 0
    }
}

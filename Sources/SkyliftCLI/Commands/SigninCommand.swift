import Foundation
import SkyliftWebApp

/// `skylift signin`: a fresh one-time sign-in link for the web app of a server that is already running.
public enum SigninCommand: Command {
    public static let spec = CommandSpec(
        name: "signin",
        summary: "print a one-time sign-in link for the web app of a running skylift serve",
        usage: "signin [--root DIR] [--url URL]",
        details: """
        Print a link that signs a browser in to the web app once, within ten minutes, as the
        one `skylift serve` prints at start. The code is recorded (as a digest) in the store's
        state folder, so a server running on the same --root accepts it at once; the token is
        never part of the link.
        """,
        options: Options.specs,
        positionals: 0...0,
        examples: [
            "skylift signin",
            "skylift signin --root ~/media --url https://192.168.1.20:8421",
        ])

    public struct Options: CommandOptions {
        var root: String?
        var url: String?

        public init() {}

        public static let declarations: [OptionDeclaration<Options>] = [
            .value("--root", "DIR", help: "the served folder (default: $XDG_DATA_HOME/skylift/store)", \.root),
            .value("--url", "URL", help: "the server's address for the printed link (default: http://127.0.0.1:8421)", \.url),
        ]
    }

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let options = invocation.options
        let root = try EmbeddedCloudDefaults.existingStore(options.root, option: Options.name(\.root), environment: context.environment)
        let code: String
        do { code = try SignInCodes(state: try WebState(root: root.path)).create() } catch { throw CommandFailure("\(error)") }
        let base = (options.url ?? "http://\(EmbeddedCloudDefaults.listen)").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        context.output.line("\(base)/signin?code=\(code)")
        context.output.line("valid once, until \(ISO8601DateFormatter().string(from: Date().addingTimeInterval(SignInCodes.lifetime)))")
        return 0
    }
}

import Foundation
import SkyliftStorageServer
import SkyliftWebApp

/// `skylift signin`: a fresh one-time sign-in link for the web app of a server that is already running.
public enum SigninCommand: Command {
    public static let spec = CommandSpec(
        name: "signin",
        summary: "print a one-time sign-in link for the web app of a running skylift serve",
        usage: "signin [--root DIR | --store s3://BUCKET/PREFIX/] [--url URL] [--s3-endpoint URL] [--s3-addressing MODE]",
        details: """
        Print a link that signs a browser in to the web app once, within ten minutes, as the
        one `skylift serve` prints at start. The code is recorded (as a digest) in the store's
        state folder, so a server running on the same --root accepts it at once; the token is
        never part of the link. With --store the code goes into the bucket, where every
        `skylift serve --store` instance on it accepts it.
        """,
        options: Options.specs,
        positionals: 0...0,
        examples: [
            "skylift signin",
            "skylift signin --root ~/media --url https://192.168.1.20:8421",
            "skylift signin --store s3://media/cloud/ --s3-endpoint http://127.0.0.1:7480 --url https://cloud.lan",
        ])

    public struct Options: CommandOptions {
        var root: String?
        var store: String?
        var url: String?
        var s3 = S3Options()

        public init() {}

        public static let declarations: [OptionDeclaration<Options>] = [
            .value("--root", "DIR", help: "the served folder (default: $XDG_DATA_HOME/skylift/store)", \.root),
            .value("--store", "s3://BUCKET/PREFIX/", help: "the S3 store a running serve --store serves", \.store),
            .value("--url", "URL", help: "the server's address for the printed link (default: http://127.0.0.1:8421)", \.url),
        ] + S3Options.declarations.within(\.s3)
    }

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let options = invocation.options
        try options.exclusive(\.root, \.store, command: spec.name)
        let code: String
        if let text = options.store {
            let store = try S3Settings.store(text, option: "--store", options.s3, command: spec.name, context: context)
            do { code = try StorageServer.signInCode(bucket: store) } catch { throw CommandFailure("\(error)") }
        } else {
            let root = try EmbeddedCloudDefaults.existingStore(options.root, option: Options.name(\.root), environment: context.environment)
            do { code = try SignInCodes(state: try WebState(root: root.path)).create() } catch { throw CommandFailure("\(error)") }
        }
        let base = (options.url ?? "http://\(EmbeddedCloudDefaults.listen)").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        context.output.line("\(base)/signin?code=\(code)")
        context.output.line("valid once, until \(ISO8601DateFormatter().string(from: Date().addingTimeInterval(SignInCodes.lifetime)))")
        return 0
    }
}

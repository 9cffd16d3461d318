import SkyliftAutoUpload
import Foundation
import SkyliftFolderWatch
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore
import SkyliftStorageServer
import SkyliftUploads

/// `skylift watch`: back a folder up as its files settle.
public enum WatchCommand: Command {
    public static let spec = CommandSpec(
        name: "watch",
        summary: "upload every file of a folder once it has stopped changing",
        usage: "watch DIR [--to URL] [--token-file FILE | --token TOKEN] [--settle SECONDS] [--max-wait SECONDS] [--ignore GLOB]... [--jobs N] [--parts N] [--state DIR] [--part-size SIZE] [--json] [--mirror-deletes] [--ca-cert FILE | --pin-sha256 PIN] [--s3-endpoint URL] [--s3-addressing MODE]",
        details: """
        Watch DIR (recursively) and upload each file once it has been quiet for --settle seconds
        and two checks of its size, mtime and inode agree; DIR/a/b.jpg goes to URL/a/b.jpg.
        Progress survives crashes and restarts: the queue lives in SQLite under --state, uploads
        resume from the server's offset, and a start-up scan finds what changed meanwhile.
        Without --to, the embedded cloud is started in this process with its default store
        (as `skylift serve` would) and its URL and token are printed. A file or folder moved
        inside DIR is moved on the remote too, not uploaded again (where the destination cannot
        move, its copy keeps its old name); deletions are only propagated with
        --mirror-deletes. Dotfiles, *.part, *.tmp, *.crdownload, *~ and *.swp are ignored.
        SIGINT/SIGTERM pause uploads where they can resume and exit 0.
        """,
        options: Options.specs,
        positionals: 1...1,
        positionalCompletions: [.directories],
        examples: [
            "skylift watch ~/Pictures",
            "skylift watch /srv/camera --to https://cloud.example/dav/camera/ --token \"$TOKEN\" --settle 5",
            "skylift watch /srv/camera --to s3://media/camera/ --s3-endpoint http://127.0.0.1:9000",
        ])

    public struct Options: CommandOptions {
        var to: String?
        var token = TokenOptions()
        var settle: Double?
        var maxWait: Double?
        var ignore: [String] = []
        var jobs: Int?
        var parts: Int?
        var state: String?
        var partSize: PartSize?
        var json = false
        var mirrorDeletes = false
        var tls = ClientTLS()
        var s3 = S3Options()

        public init() {}

        public static let declarations: [OptionDeclaration<Options>] = [
            .value("--to", "URL", help: "destination folder (tus, WebDAV or s3://bucket/prefix/); default: the embedded cloud", \.to),
        ] + TokenOptions.declarations.help(\.token, "bearer token for --to (default: $SKYLIFT_TOKEN)").within(\.token) + [
            .value("--settle", "SECONDS", help: "quiet time before a file is uploaded (default: 2)", \.settle, as: .seconds(0...86_400)),
            .value("--max-wait", "SECONDS", help: "upload a file that never stops changing after this long (default: 60)",
                   \.maxWait, as: .seconds(0...31_536_000)),
            .repeated("--ignore", "GLOB", help: "also ignore matching names (or paths, if GLOB has a /)", \.ignore),
            .value("--jobs", "N", help: "uploads at once (default: 2)", \.jobs, as: .integer(1...64)),
            PartsInFlight.declaration(\.parts),
            .value("--state", "DIR", help: "queue and resume state (default: $XDG_STATE_HOME/skylift/watch/<id of DIR>)", \.state),
            PartSize.declaration(\.partSize),
            .flag("--json", help: "one JSON object per event on stdout", \.json),
            .flag("--mirror-deletes", help: "delete the remote copy when a file is deleted", \.mirrorDeletes),
        ] + ClientTLS.declarations.within(\.tls) + S3Options.declarations.within(\.s3)
    }

    public static let stopsOnSignal = true

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let given = invocation.options
        let dir = URL(fileURLWithPath: invocation.positionals[0]).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDirectory) else {
            throw CommandFailure("\(dir.path) does not exist")
        }
        guard isDirectory.boolValue else { throw CommandFailure("\(dir.path) is not a directory") }
        try given.token.exclusive(\.token, \.tokenFile, command: spec.name)
        let tls = try given.tls.trust(command: spec.name)
        var options = UploadOptions(parts: PartsInFlight.count(given.parts))
        options.tusPartials = PartsInFlight.tusPartials(given.parts)
        if let size = given.partSize { options.partLength = size.bytes }
        // Every upload is checked against the digest the server records, when it serves one (no extra bytes).
        options.checkServedDigest = true
        let state = given.state.map { URL(fileURLWithPath: $0) } ?? defaultState(for: dir, context.environment)
        let configuration = try agentConfiguration(given, dir: dir, state: state, environment: context.environment)
        let output = WatchOutput(context: context, json: given.json)
        let shutdown = ShutdownSignal()

        let s3 = try S3Settings(given.s3, command: spec.name)
        let target = try destination(given, options: &options, output: output, context: context)
        defer { target.server?.stop() }
        let (destination, token) = (target.url, target.token)

        // S3 needs no discovery: the remote is built from the location and the AWS settings.
        let s3Remote = try given.to.flatMap { S3Settings.isS3($0) ? $0 : nil }
            .map { try s3.remote($0, transport: makeDefaultTransport(tls: tls), environment: context.environment, partLength: given.partSize?.bytes) }
        let agent: WatchAgent
        do {
            let uploader: EngineUploader
            if let s3Remote {
                uploader = EngineUploader(remote: s3Remote, options: options)
            } else {
                uploader = try await EngineUploader.connect(to: destination, token: token,
                                                            transport: makeDefaultTransport(tls: tls), options: options)
            }
            agent = try WatchAgent(configuration: configuration, uploader: uploader)
        } catch {
            throw CommandFailure(error.description)
        }
        output.started(dir: dir.path, destination: Redaction.url(destination), state: state.path)
        try await watch(agent, output: output, shutdown: shutdown)
        return 0
    }

    /// Where uploads go: an s3:// or http(s) folder (with its token), or the embedded cloud started here.
    private struct Destination {
        var url: URL
        var token: String?
        /// The embedded cloud, stopped when the command ends.
        var server: StorageServer?
    }

    private static func destination(_ given: Options, options: inout UploadOptions, output: WatchOutput,
                                    context: CommandContext) throws -> Destination {
        if let to = given.to, S3Settings.isS3(to) {
            let url = try S3Settings.destination(to, partSize: given.partSize, command: spec.name, option: Options.name(\.to))
            options.partLength = S3Settings.partLength(given: given.partSize)
            return Destination(url: url, token: nil, server: nil)
        }
        if let to = given.to {
            guard let url = URL(string: to), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw UsageError.badValue(command: spec.name, option: Options.name(\.to), value: to, expected: "an http(s) URL")
            }
            return Destination(url: url, token: try SecretOptions.token(given.token, environment: context.environment, command: spec.name),
                               server: nil)
        }
        let embedded = try EmbeddedCloud.start(context.environment)
        let open: String
        do { open = try embedded.server.signInLink() ?? embedded.url.deletingLastPathComponent().absoluteString } catch {
            throw CommandFailure("cannot make a sign-in link: \(error)")
        }
        output.embedded(store: embedded.store, url: embedded.url, token: embedded.token, open: open)
        return Destination(url: embedded.url, token: embedded.token, server: embedded.server)
    }

    /// `--settle`, `--max-wait`, `--ignore`, `--jobs` and `--mirror-deletes` for the agent watching `dir`; the wait
    /// for a server out of space from ``SpaceBackoff``.
    private static func agentConfiguration(_ given: Options, dir: URL, state: URL,
                                           environment: [String: String]) throws(UsageError) -> WatchAgentConfiguration {
        let ignore: IgnoreRules
        do {
            ignore = try IgnoreRules(given.ignore)
        } catch {
            throw .badValue(command: spec.name, option: Options.name(\.ignore), value: "\(error)", expected: "a glob")
        }
        var configuration = WatchAgentConfiguration(
            watch: WatchConfiguration(root: dir, settle: given.settle ?? 2, maxWait: given.maxWait ?? 60, ignore: ignore),
            stateDirectory: state, jobs: given.jobs ?? 2, mirrorDeletes: given.mirrorDeletes)
        configuration.retry = SpaceBackoff.applied(to: configuration.retry, environment: environment)
        return configuration
    }

    /// Runs `agent` until it has nothing left to do or a signal pauses it, printing its events.
    private static func watch(_ agent: WatchAgent, output: WatchOutput, shutdown: ShutdownSignal) async throws {
        let printer = Task { for await event in agent.events { output.show(event) } }
        let stopper = Task {
            let number = await shutdown.wait()
            output.note("signal \(number): pausing uploads and stopping")
            agent.stop()
        }
        defer { stopper.cancel() }
        do {
            try await agent.run()
        } catch {
            await printer.value
            throw CommandFailure(error.description)
        }
        await printer.value
    }

    /// `$XDG_STATE_HOME/skylift/watch/<first 16 hex of SHA-256 of DIR>`: one queue per watched folder.
    static func defaultState(for dir: URL, _ environment: [String: String]) -> URL {
        let id = Digest.hash(.sha256, Array(dir.path.utf8)).hexString.prefix(16)
        return ResumeFileStore.defaultDirectory(environment: environment).appendingPathComponent("watch").appendingPathComponent(String(id))
    }
}

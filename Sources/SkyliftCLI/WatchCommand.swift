import AutoUpload
import Foundation
import FolderWatch
import Hashing
import HTTPClient
import Remotes
import SkyliftCore
import StorageServer
import Uploads

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
        options: [
            OptionSpec("--to", "URL", help: "destination folder (tus, WebDAV or s3://bucket/prefix/); default: the embedded cloud"),
            OptionSpec("--token", "TOKEN", help: "bearer token for --to (default: $SKYLIFT_TOKEN)"),
            SecretOptions.tokenFileOption,
            OptionSpec("--settle", "SECONDS", help: "quiet time before a file is uploaded (default: 2)"),
            OptionSpec("--max-wait", "SECONDS", help: "upload a file that never stops changing after this long (default: 60)"),
            OptionSpec("--ignore", "GLOB", help: "also ignore matching names (or paths, if GLOB has a /)", repeatable: true),
            OptionSpec("--jobs", "N", help: "uploads at once (default: 2)"),
            TransferSettings.partsOption,
            OptionSpec("--state", "DIR", help: "queue and resume state (default: $XDG_STATE_HOME/skylift/watch/<id of DIR>)"),
            OptionSpec("--part-size", "SIZE", help: "tus PATCH size if the server lacks block-checksum, e.g. 16M (default: 64M), or S3 part (at least 5M; default: sized to the file)"),
            OptionSpec("--json", help: "one JSON object per event on stdout"),
            OptionSpec("--mirror-deletes", help: "delete the remote copy when a file is deleted"),
        ] + ClientTLS.options + S3Settings.optionSpecs,
        positionals: 1...1,
        positionalCompletions: [.directories],
        examples: [
            "skylift watch ~/Pictures",
            "skylift watch /srv/camera --to https://cloud.example/dav/camera/ --token \"$TOKEN\" --settle 5",
            "skylift watch /srv/camera --to s3://media/camera/ --s3-endpoint http://127.0.0.1:9000",
        ])

    public static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
        let dir = URL(fileURLWithPath: arguments.positionals[0]).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDirectory) else {
            throw CommandFailure("\(dir.path) does not exist")
        }
        guard isDirectory.boolValue else { throw CommandFailure("\(dir.path) is not a directory") }
        try arguments.exclusive(["--token", "--token-file"])
        let tls = try ClientTLS.trust(arguments, command: spec.name)
        var (options, s3PartLength) = try uploadOptions(arguments)
        let state = arguments.value("--state").map { URL(fileURLWithPath: $0) } ?? defaultState(for: dir, context.environment)
        let configuration = try agentConfiguration(arguments, dir: dir, state: state)
        let output = WatchOutput(context: context, json: arguments.flag("--json"))
        let shutdown = ShutdownSignal()

        var server: StorageServer?
        defer { server?.stop() }
        let destination: URL
        let token: String?
        let s3 = try S3Settings(arguments, command: spec.name)
        if let to = arguments.value("--to"), S3Settings.isS3(to) {
            destination = try S3Settings.destination(to, partLength: options.partLength, arguments: arguments, command: spec.name, option: "--to")
            options.partLength = S3Settings.partLength(given: arguments.value("--part-size") == nil ? nil : options.partLength)
            token = nil
        } else if let to = arguments.value("--to") {
            guard let url = URL(string: to), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw UsageError.badValue(command: spec.name, option: "--to", value: to, expected: "an http(s) URL")
            }
            destination = url
            token = try SecretOptions.token(arguments, environment: context.environment, command: spec.name)
        } else {
            let embedded = try EmbeddedCloud.start(context.environment)
            server = embedded.server
            destination = embedded.url
            token = embedded.token
            output.embedded(store: embedded.store, url: embedded.url, token: embedded.token)
        }

        // S3 needs no discovery: the remote is built from the location and the AWS settings.
        let s3Remote = try arguments.value("--to").flatMap { S3Settings.isS3($0) ? $0 : nil }
            .map { try s3.remote($0, transport: makeDefaultTransport(tls: tls), environment: context.environment, partLength: s3PartLength) }
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
        return try await run(agent, output: output, shutdown: shutdown)
    }

    /// `--settle`, `--max-wait`, `--ignore`, `--jobs` and `--mirror-deletes` for the agent watching `dir`.
    static func agentConfiguration(_ arguments: ParsedArguments, dir: URL, state: URL) throws -> WatchAgentConfiguration {
        let settle = try arguments.seconds("--settle", in: 0...86_400) ?? 2
        let maxWait = try arguments.seconds("--max-wait", in: 0...31_536_000) ?? 60
        let jobs = try arguments.integer("--jobs", in: 1...64) ?? 2
        let ignore: IgnoreRules
        do {
            ignore = try IgnoreRules(arguments.all("--ignore"))
        } catch {
            throw UsageError.badValue(command: spec.name, option: "--ignore", value: "\(error)", expected: "a glob")
        }
        return WatchAgentConfiguration(watch: WatchConfiguration(root: dir, settle: settle, maxWait: maxWait, ignore: ignore),
                                       stateDirectory: state, jobs: jobs, mirrorDeletes: arguments.flag("--mirror-deletes"))
    }

    /// `--parts` and `--part-size`: the engine's options, and the S3 part size asked for (nil: sized to the file).
    static func uploadOptions(_ arguments: ParsedArguments) throws -> (UploadOptions, s3PartLength: Int64?) {
        var options = UploadOptions(parts: try arguments.integer("--parts", in: 1...64) ?? UploadOptions.defaultParts)
        guard let raw = arguments.value("--part-size") else { return (options, nil) }
        guard let size = ByteCount.parse(raw), size >= 1 << 10 else {
            throw UsageError.badValue(command: spec.name, option: "--part-size", value: raw, expected: "a size of at least 1K, e.g. 16M")
        }
        options.partLength = size
        return (options, size)
    }

    /// Runs the agent until a signal stops it, printing its events.
    static func run(_ agent: WatchAgent, output: WatchOutput, shutdown: ShutdownSignal) async throws -> Int32 {
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
        return 0
    }

    /// `$XDG_STATE_HOME/skylift/watch/<first 16 hex of SHA-256 of DIR>`: one queue per watched folder.
    static func defaultState(for dir: URL, _ environment: [String: String]) -> URL {
        let id = Digest.hash(.sha256, Array(dir.path.utf8)).hexString.prefix(16)
        return ResumeStore.defaultDirectory(environment: environment).appendingPathComponent("watch").appendingPathComponent(String(id))
    }
}

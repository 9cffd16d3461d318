import Foundation
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore
import SkyliftUploads

/// `skylift upload FILE... --to URL`: resumable streaming uploads over tus or WebDAV.
public enum UploadCommand: Command {
    public static let spec = CommandSpec(
        name: "upload",
        summary: "upload files to a cloud folder, resumably (tus, WebDAV or S3)",
        usage: "upload FILE... --to URL [--token-file FILE | --token TOKEN] [--header-file FILE] [--header 'NAME: VALUE']... [--jobs N] [--parts N] [--state DIR] [--json] [--force] [--verify] [--cancel] [--wait-for-space DURATION] [--ca-cert FILE | --pin-sha256 PIN] [--s3-endpoint URL] [--s3-addressing MODE]",
        details: """
        Stream files to a cloud folder with no temporary copy. Skylift asks the folder URL
        (OPTIONS) what it speaks: tus when offered (resumable, per-part checksums), else WebDAV
        PUT (missing folders are created). An s3://bucket/prefix/ destination gets multipart
        uploads (credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE, endpoint
        from --s3-endpoint or AWS_ENDPOINT_URL). Resume state is written before the first byte;
        running the same command again after a crash continues from the server's offset.
        Exits 0 only when the server confirmed every file. --cancel gives up unfinished uploads
        instead: the server's partial upload is removed (tus DELETE, S3 AbortMultipartUpload)
        and the resume state forgotten. A server out of space (507) stops the file with what it
        kept (never sent again: the same command continues from there once space is freed),
        unless --wait-for-space is given: then it is tried again after 1, 2, 4... minutes (at
        most 15 apart) until space returns or DURATION is spent.
        """,
        options: Options.specs,
        positionals: 1...Int.max,
        positionalCompletions: [.files],
        examples: [
            "skylift upload clip.mp4 --to http://127.0.0.1:8421/dav/photos/ --token \"$TOKEN\"",
            "SKYLIFT_TOKEN=... skylift upload *.mov --to https://cloud.example/files/ --jobs 4 --json",
            "skylift upload clip.mp4 --to https://192.168.1.20:8421/dav/ --token-file ~/.config/skylift/token --pin-sha256 sha256//BASE64",
            "skylift upload clip.mp4 --to s3://media/raw/ --s3-endpoint http://127.0.0.1:9000 --s3-addressing path",
        ])

    public struct Options: CommandOptions {
        var to: String?
        var jobs: Int?
        var cancel = false
        var transfer = TransferOptions()

        public init() {}

        public static let declarations: [OptionDeclaration<Options>] = [
            .value("--to", "URL", help: "destination folder URL or s3://bucket/prefix/ (required)", \.to),
            .value("--jobs", "N", help: "files uploaded at once (default: 2)", \.jobs, as: .integer(1...64)),
            .flag("--cancel", help: "abort the unfinished uploads of FILE... to --to instead of uploading", \.cancel),
        ] + TransferOptions.declarations.within(\.transfer)
    }

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let options = invocation.options, paths = invocation.positionals
        guard let to = options.to else {
            throw UsageError.invalid(command: spec.name, message: "missing \(Options.name(\.to)) URL (the destination folder)")
        }
        let settings = try TransferSettings(options.transfer, jobs: options.jobs ?? 2, destination: to, option: Options.name(\.to),
                                            context: context, command: spec.name)
        let transport = makeDefaultTransport(tls: settings.tls)
        if options.cancel {
            return try await cancel(paths, uploader: settings.uploader(transport: transport), context: context)
        }
        let items = paths.map { path in
            let name = URL(fileURLWithPath: path).lastPathComponent
            return UploadItem(label: path, name: name) { try await BlobUploadSource.file(path) }
        }
        // Bad local paths are reported before the network is touched.
        var preflight: [String] = []
        for path in paths {
            if let problem = LocalSource.problem(path) { preflight.append(problem.description) }
        }
        if let last = preflight.last {
            for line in preflight.dropLast() { context.errors.line("skylift upload: \(line)") }
            throw CommandFailure(last)
        }
        let uploader = try await settings.uploader(transport: transport)
        return await TransferSettings.run(items, with: uploader, jobs: settings.jobs, json: settings.json, context: context, command: spec.name)
    }

    /// `--cancel`: abandons each file's recorded upload; the files themselves need not exist any more.
    static func cancel(_ paths: [String], uploader: Uploader, context: CommandContext) async throws -> Int32 {
        let targets = paths.map { path in
            (label: path, source: URL(fileURLWithPath: path).standardizedFileURL.path, name: URL(fileURLWithPath: path).lastPathComponent)
        }
        return await abandon(targets, uploader: uploader, context: context, command: spec.name)
    }

    /// Abandons each recorded upload of `source` to `name`, one line per target; 1 when any could not be cancelled.
    static func abandon(_ targets: [(label: String, source: String, name: String)], uploader: Uploader,
                        context: CommandContext, command: String) async -> Int32 {
        var failed = false
        for target in targets {
            let destination = RemotePath.url(target.name, in: uploader.remote.folderURL).absoluteString
            let what = "\(target.label) → \(Redaction.url(destination))"
            do {
                switch try await uploader.abandon(source: target.source, as: target.name) {
                case let .aborted(confirmed):
                    context.output.line("cancelled \(what): removed \(confirmed) bytes from the server")
                case let .kept(confirmed, reason):
                    failed = true
                    let left = confirmed.map { "\(ByteCount.format($0)) are" } ?? "an unknown amount is"
                    context.errors.line("skylift \(command): cannot cancel \(what): the server would not remove it (\(reason)); "
                        + "\(left) left on the server and the resume state is kept: run the same command again")
                case .forgotten:
                    context.output.line("cancelled \(what): the server no longer held it; resume state removed")
                case .nothingRecorded:
                    context.output.line("nothing to cancel for \(what)")
                }
            } catch {
                failed = true
                context.errors.line("skylift \(command): cannot cancel \(what): \(error)")
            }
        }
        return failed ? 1 : 0
    }
}

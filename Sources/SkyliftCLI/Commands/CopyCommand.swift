import Foundation
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore
import SkyliftUploads
import SkyliftS3

/// `skylift copy SOURCE DEST`: stream a local file or an http(s) object into a cloud folder.
public enum CopyCommand: Command {
    public static let spec = CommandSpec(
        name: "copy",
        summary: "stream a file, an http(s) or an s3:// object into a cloud folder, with no local copy",
        usage: "copy SOURCE DEST [--source-header 'NAME: VALUE']... [--token-file FILE | --token TOKEN] [--header-file FILE] [--header 'NAME: VALUE']... [--parts N] [--state DIR] [--json] [--force] [--verify] [--cancel] [--wait-for-space DURATION] [--ca-cert FILE | --pin-sha256 PIN] [--s3-endpoint URL] [--s3-addressing MODE]",
        details: """
        Copy SOURCE (a local path, an http(s) URL or s3://bucket/key, read with ranged GETs)
        into the folder DEST (as for upload: tus when offered, else WebDAV PUT; s3://bucket/prefix/
        for a multipart upload). Bytes go from source to destination as they are read; nothing
        is stored locally. Resumable like upload.
        """,
        options: Options.specs,
        positionals: 2...2,
        positionalCompletions: [.files, .none],
        examples: [
            "skylift copy https://media.example/raw/clip.mp4 http://127.0.0.1:8421/dav/archive/ --source-header 'Authorization: Bearer ...'",
            "skylift copy ./clip.mp4 http://127.0.0.1:8421/dav/archive/",
            "skylift copy s3://media/raw/clip.mp4 s3://archive/2026/ --s3-endpoint http://127.0.0.1:9000",
        ])

    public struct Options: CommandOptions {
        var sourceHeaders: [String] = []
        var cancel = false
        var transfer = TransferOptions()

        public init() {}

        public static let declarations: [OptionDeclaration<Options>] = [
            .repeated("--source-header", "'NAME: VALUE'", help: "send this header with every request to SOURCE", \.sourceHeaders),
            .flag("--cancel", help: "abort the unfinished copy of SOURCE to DEST instead of copying", \.cancel),
        ] + TransferOptions.declarations.within(\.transfer)
    }

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let options = invocation.options
        let source = invocation.positionals[0], dest = invocation.positionals[1]
        let settings = try TransferSettings(options.transfer, jobs: 1, destination: dest, option: "DEST", context: context, command: spec.name)
        let transport = makeDefaultTransport(tls: settings.tls)
        let sourceHeaders = try SecretOptions.fields(options.sourceHeaders, option: Options.name(\.sourceHeaders), command: spec.name)
        if options.cancel {
            let target: (label: String, source: String, name: String)
            if S3Settings.isS3(source) {
                let (url, name) = try S3Settings.objectURL(source, command: spec.name, option: "SOURCE")
                target = (source, Redaction.url(url, query: .drop), name)
            } else if let url = URL(string: source), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" {
                target = (Redaction.url(url, query: .drop), Redaction.url(url, query: .drop), url.lastPathComponent)
            } else {
                target = (source, URL(fileURLWithPath: source).standardizedFileURL.path, URL(fileURLWithPath: source).lastPathComponent)
            }
            let uploader = try await settings.uploader(transport: transport)
            return await UploadCommand.abandon([target], uploader: uploader, context: context, command: spec.name)
        }
        let item: UploadItem
        if S3Settings.isS3(source) {
            // Signed ranged GETs; HTTPSource pins the object with If-Match on its ETag.
            let (url, name) = try S3Settings.objectURL(source, command: spec.name, option: "SOURCE")
            let signing = S3SigningTransport(client: try settings.s3.client(transport: transport, context: context))
            item = UploadItem(label: source, name: name) {
                try await BlobUploadSource.http(url, headers: [:], transport: signing)
            }
        } else if let url = URL(string: source), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            let name = url.lastPathComponent
            guard !name.isEmpty, name != "/" else {
                throw UsageError.badValue(command: spec.name, option: "SOURCE", value: Redaction.url(url, query: .drop), expected: "a URL naming an object, not a folder")
            }
            let headers = sourceHeaders
            item = UploadItem(label: Redaction.url(url, query: .drop), name: name) {
                try await BlobUploadSource.http(url, headers: headers, transport: transport)
            }
        } else {
            if let problem = LocalSource.problem(source) { throw CommandFailure(problem.description) }
            item = UploadItem(label: source, name: URL(fileURLWithPath: source).lastPathComponent) { try await BlobUploadSource.file(source) }
        }
        let uploader = try await settings.uploader(transport: transport)
        return await TransferSettings.run([item], with: uploader, jobs: 1, json: settings.json, context: context, command: spec.name)
    }
}

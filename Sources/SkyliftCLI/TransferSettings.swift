import Foundation
import HTTPClient
import Remotes
import SkyliftCore
import Uploads

/// Options `upload` and `copy` share, read from parsed arguments and the environment.
struct TransferSettings {
    var destination: URL
    var headers: HTTPHeaders
    var state: URL
    var jobs: Int
    var json: Bool
    var options: UploadOptions
    /// Endpoint and addressing for `s3://` destinations and sources.
    var s3: S3Settings
    /// The destination as given when it is `s3://`: keys are taken literally, never percent-decoded.
    var s3Location: String?
    /// `--part-size` for an `s3://` destination (nil: sized to the file).
    var s3PartLength: Int64?
    /// Where S3 credentials and settings are read from.
    var environment: [String: String]
    /// `--ca-cert` or `--pin-sha256` for HTTPS servers no system CA vouches for.
    var tls: TLSTrust?

    /// Options shared by `upload` and `copy`, in help order.
    static let optionSpecs: [OptionSpec] = [
        OptionSpec("--token", "TOKEN", help: "send 'Authorization: Bearer TOKEN' (default: $SKYLIFT_TOKEN)"),
        SecretOptions.tokenFileOption,
        OptionSpec("--header", "'NAME: VALUE'", help: "send this header with every request to the destination", repeatable: true),
        SecretOptions.headerFileOption,
        OptionSpec("--state", "DIR", help: "resume state (default: $XDG_STATE_HOME/skylift)"),
        OptionSpec("--json", help: "print one JSON object per event instead of progress lines"),
        OptionSpec("--force", help: "upload even when the destination already holds the same content"),
        OptionSpec("--verify", help: "read the object back (or use a server digest) and compare SHA-256"),
        OptionSpec("--part-size", "SIZE", help: "tus PATCH size if the server lacks block-checksum, e.g. 16M (default: 64M), or S3 part (at least 5M; default: sized to the file)"),
        partsOption,
    ] + ClientTLS.options + S3Settings.optionSpecs

    /// `--parts`, shared with `watch`.
    static let partsOption = OptionSpec("--parts", "N", help: "parts of one file in flight, where the remote takes them in any order (S3; default: \(UploadOptions.defaultParts))")

    init(_ arguments: ParsedArguments, destination raw: String, context: CommandContext, command: String) throws {
        let option = command == "copy" ? "DEST" : "--to"
        s3 = try S3Settings(arguments, command: command)
        tls = try ClientTLS.trust(arguments, command: command)
        environment = context.environment
        let httpURL = URL(string: raw)
        if !S3Settings.isS3(raw) {
            guard let url = httpURL, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
                throw UsageError.badValue(command: command, option: option, value: raw, expected: "an http(s) folder URL or s3://bucket/prefix/")
            }
        }
        let extra = try SecretOptions.headers(arguments, command: command)
        let token = try SecretOptions.token(arguments, environment: context.environment, command: command)
        headers = RemoteHTTP.headers(token: token, extra: extra)
        state = arguments.value("--state").map { URL(fileURLWithPath: $0) } ?? ResumeStore.defaultDirectory(environment: context.environment)
        jobs = try arguments.integer("--jobs", in: 1...64) ?? 2
        json = arguments.flag("--json")
        var partLength: Int64 = 64 << 20
        if let raw = arguments.value("--part-size") {
            guard let v = ByteCount.parse(raw), v >= 1 << 10 else {
                throw UsageError.badValue(command: command, option: "--part-size", value: raw, expected: "a size of at least 1K, e.g. 16M")
            }
            partLength = v
        }
        if let httpURL, !S3Settings.isS3(raw) {
            destination = httpURL
        } else {
            destination = try S3Settings.destination(raw, partLength: partLength, arguments: arguments, command: command, option: option)
            s3Location = raw
            s3PartLength = arguments.value("--part-size") == nil ? nil : partLength
            partLength = S3Settings.partLength(given: arguments.value("--part-size") == nil ? nil : partLength)
        }
        options = UploadOptions(force: arguments.flag("--force"), verify: arguments.flag("--verify"), partLength: partLength,
                                parts: try arguments.integer("--parts", in: 1...64) ?? UploadOptions.defaultParts)
    }

    /// Asks the destination what it speaks and returns an uploader for it; errors become one-line failures.
    func uploader(transport: any HTTPTransport) async throws -> Uploader {
        let http = RemoteHTTP(transport: transport, headers: headers)
        do {
            let remote: any Remote = if let s3Location {
                try s3.remote(s3Location, transport: transport, environment: environment, partLength: s3PartLength)
            } else {
                try await RemoteDiscovery(http: http, partLength: options.partLength).discover(destination)
            }
            return Uploader(remote: remote, store: ResumeStore(directory: state), options: options)
        } catch let e as RemoteError {
            throw CommandFailure(e.description)
        } catch let e as S3Error {
            throw CommandFailure(e.description)
        }
    }

    /// Runs the batch, reporting as asked; exit status 0 only when every item was confirmed (or skipped).
    static func run(_ items: [UploadItem], with uploader: Uploader, jobs: Int, json: Bool, context: CommandContext, command: String) async -> Int32 {
        let reporter = TransferReporter(labels: items.map(\.label), mode: json ? .json : (context.isTerminal ? .live : .plain), context: context)
        let results = await uploader.uploadAll(items, jobs: jobs) { reporter.report($0, $1) }
        reporter.finish()
        var failed = 0
        for case let .failure(error) in results {
            failed += 1
            if !json { context.errors.line("skylift \(command): \(error.description)") }
        }
        return failed == 0 ? 0 : 1
    }
}

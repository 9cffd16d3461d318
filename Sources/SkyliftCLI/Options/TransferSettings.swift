import Foundation
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore
import SkyliftUploads
import SkyliftS3

/// Options `upload` and `copy` share.
struct TransferOptions: CommandOptions {
    var token = TokenOptions()
    var headers = HeaderOptions()
    var state: String?
    var json = false
    var force = false
    var verify = false
    var partSize: PartSize?
    var parts: Int?
    var waitForSpace: Double?
    var tls = ClientTLS()
    var s3 = S3Options()

    static let declarations: [OptionDeclaration<TransferOptions>] = TokenOptions.declarations.within(\.token)
        + HeaderOptions.declarations.within(\.headers) + [
            .value("--state", "DIR", help: "resume state (default: $XDG_STATE_HOME/skylift)", \.state),
            .flag("--json", help: "print one JSON object per event instead of progress lines", \.json),
            .flag("--force", help: "upload even when the destination already holds the same content", \.force),
            .flag("--verify", help: "read the object back (or use a server digest) and compare SHA-256", \.verify),
            PartSize.declaration(\.partSize),
            PartsInFlight.declaration(\.parts),
            .value("--wait-for-space", "DURATION",
                   help: "when the server is out of space (507), wait up to DURATION (e.g. 2h) for space instead of stopping",
                   \.waitForSpace, as: .duration(0...31 * 86_400)),
        ] + ClientTLS.declarations.within(\.tls) + S3Options.declarations.within(\.s3)
}

/// `TransferOptions` checked and resolved with the environment, for one destination.
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

    /// `option` names the destination in messages (`--to` or `DEST`).
    init(_ given: TransferOptions, jobs: Int, destination raw: String, option: String, context: CommandContext, command: String) throws {
        s3 = try S3Settings(given.s3, command: command)
        tls = try given.tls.trust(command: command)
        environment = context.environment
        let httpURL = URL(string: raw)
        if !S3Settings.isS3(raw) {
            guard let url = httpURL, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
                throw UsageError.badValue(command: command, option: option, value: raw, expected: "an http(s) folder URL or s3://bucket/prefix/")
            }
        }
        let extra = try SecretOptions.headers(given.headers, command: command)
        let token = try SecretOptions.token(given.token, environment: context.environment, command: command)
        headers = RemoteHTTP.headers(token: token, extra: extra)
        state = given.state.map { URL(fileURLWithPath: $0) } ?? ResumeFileStore.defaultDirectory(environment: context.environment)
        self.jobs = jobs
        json = given.json
        var partLength: Int64 = given.partSize?.bytes ?? 64 << 20
        if let httpURL, !S3Settings.isS3(raw) {
            destination = httpURL
        } else {
            destination = try S3Settings.destination(raw, partSize: given.partSize, command: command, option: option)
            s3Location = raw
            s3PartLength = given.partSize?.bytes
            partLength = S3Settings.partLength(given: given.partSize)
        }
        options = UploadOptions(force: given.force, verify: given.verify, partLength: partLength, parts: PartsInFlight.count(given.parts))
        options.tusPartials = PartsInFlight.tusPartials(given.parts)
        options.retry = SpaceBackoff.applied(to: options.retry, environment: context.environment)
        options.retry.spaceWait = given.waitForSpace ?? 0
    }

    /// Asks the destination what it speaks and returns an uploader for it; errors become one-line failures.
    func uploader(transport: any HTTPTransport) async throws -> Uploader {
        let http = RemoteHTTP(transport: transport, headers: headers)
        do {
            let remote: any Remote = if let s3Location {
                try s3.remote(s3Location, transport: transport, environment: environment, partLength: s3PartLength)
            } else {
                try await RemoteDiscovery(http: http, partLength: options.partLength, tusPartials: options.tusPartials).discover(destination)
            }
            return Uploader(remote: remote, store: ResumeFileStore(directory: state), options: options)
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

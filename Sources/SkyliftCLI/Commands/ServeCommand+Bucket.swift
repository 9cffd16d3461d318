import Foundation
import SkyliftCore
import SkyliftHashing
import SkyliftStorageServer
import SkyliftSystem

extension ServeCommand {
    /// `serve --store s3://…`: the embedded cloud over a bucket. There is no folder to keep a generated token or
    /// a self-signed certificate beside, so both must be given.
    static func serveBucket(_ text: String, _ options: Options, context: CommandContext) async throws -> Int32 {
        guard S3Settings.isS3(text) else {
            throw UsageError.badValue(command: spec.name, option: "--store", value: text, expected: "s3://bucket/prefix/")
        }
        if options.tls.selfSigned {
            throw UsageError.invalid(command: spec.name, message: "--tls-self-signed keeps its certificate next to a store folder; "
                + "with --store give --tls-cert and --tls-key")
        }
        let store = try S3Settings.store(text, option: "--store", options.s3, command: spec.name, context: context)
        // Each PUT holds one 8 MiB part at a time: freed parts go back to the system, not to per-thread heaps.
        LargeAllocations.returnPromptly()
        let token: String?
        if options.noAuth {
            token = nil
        } else if let given = try SecretOptions.token(options.token, environment: context.environment, command: spec.name) {
            token = given
        } else {
            throw CommandFailure("serving \(store.location) needs --token-file, --token, $SKYLIFT_TOKEN or --no-auth: "
                + "there is no store folder to keep a generated token in")
        }
        let listen = options.listen ?? EmbeddedCloudDefaults.listen
        // The root is only used for a self-signed certificate, refused above.
        let unused = URL(fileURLWithPath: "/")
        let tls = try ServeTLS.resolve(options.tls, root: unused, listen: listen, command: spec.name)
        let shutdown = ShutdownSignal()
        var configuration = try storageConfiguration(options, root: unused, token: token, listen: listen, context: context)
        configuration.bucket = store
        configuration.tls = tls?.identity
        options.thumbnails(into: &configuration)
        configuration.thumbnailFolder = thumbnailFolder(for: store.location, context.environment)
        let server = try start(configuration, listen: listen)
        let signIn: String?
        do { signIn = try server.signInLink() } catch { throw CommandFailure("cannot make a sign-in link: \(error)") }
        context.output.line("skylift: serving \(store.location) (WebDAV class 1 and 2, tus, web app)")
        context.output.line("  url:   \(server.baseURL)/dav/")
        context.output.line(token == nil ? "  auth:  none (--no-auth)" : "  token: as given")
        context.output.line("  open:  \(signIn ?? server.baseURL + "/")")
        for line in tls?.startLines ?? [] { context.output.line(line) }
        if !listen.isLoopback && tls == nil {
            context.errors.line("skylift serve: warning: listening on \(listen) without TLS: the token crosses the network in clear")
        }
        return await serveUntilSignal(server, shutdown, context: context)
    }

    /// This machine's cache of a bucket's thumbnails: `$XDG_CACHE_HOME/skylift/thumbs/<id of the store>` (0700),
    /// else under `~/.cache`. Nil when it cannot be made: thumbnails then answer 503, the rest is served.
    static func thumbnailFolder(for location: String, _ environment: [String: String]) -> URL? {
        let id = Digest.hash(.sha256, Array(location.utf8)).prefix(8).hexString
        let folder = ProxyCommand.defaultCacheDirectory(environment).appendingPathComponent("thumbs/" + id)
        do {
            try FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch { return nil }
        return folder
    }
}

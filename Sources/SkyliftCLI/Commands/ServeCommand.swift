import Foundation
import SkyliftHashing
import SkyliftCore
import SkyliftSystem
import SkyliftStorageServer

/// `skylift serve`: the embedded cloud over a directory.
public enum ServeCommand: Command {
    public static let spec = CommandSpec(
        name: "serve",
        summary: "serve a folder as the embedded cloud (WebDAV, tus, ranged GET)",
        usage: "serve [--root DIR | --store s3://BUCKET/PREFIX/] [--listen HOST:PORT] [--token-file FILE | --token TOKEN | --no-auth] [--allow-host NAME]... [--tls-cert FILE --tls-key FILE | --tls-self-signed] [--tus-expiry SECONDS] [--digests LIST] [--thumbnail-cache SIZE] [--thumbnail-jobs N] [--max-connections N] [--max-connections-per-address N] [--header-timeout SECONDS] [--body-timeout SECONDS] [--keepalive-timeout SECONDS] [--s3-endpoint URL] [--s3-addressing MODE] [--quiet]",
        details: """
        Serve a folder as the embedded cloud: WebDAV at /dav/, tus uploads at /uploads/<id>,
        ranged GET/HEAD on every file. The token comes from --token-file, --token or
        $SKYLIFT_TOKEN; without any, a random token is created on first start, kept next to
        the store (mode 0600) and printed with the URL. With --no-auth only requests for
        loopback names and addresses (and --allow-host names) are answered, so web pages
        cannot reach the store by DNS rebinding; with a token, --allow-host restricts too.
        With --tls-self-signed a certificate is made on first start and kept next to the store
        (<store>.tls-cert.pem, key in <store>.tls-key.pem, mode 0600); its SHA-256 fingerprint
        and the public-key pin clients pass to --pin-sha256 are printed at start.
        The SHA-256 of every file written is recorded with it (in an extended attribute) and
        served as Repr-Digest and in PROPFIND; --digests sha256,sha1,md5 also keeps the SHA-1
        and MD5 that ownCloud clients such as `rclone check` compare.
        The web app's thumbnails (libvips; poster frames of videos through ffmpeg when it is on
        PATH) are cached in <store>/.skylift-thumbs, at most --thumbnail-cache bytes (default
        512M), and made --thumbnail-jobs at a time (default: the number of cores, 2 to 8).
        With --store s3://bucket/prefix/ the files of that S3 store (as `skylift scrub` reads
        one) are served instead: WebDAV class 1 and 2 under /dav/, tus uploads, the web app
        and share links, with locks, properties, upload state, sessions and links kept in
        the bucket, so any instance on it answers alike; thumbnails of images are cached
        in $XDG_CACHE_HOME/skylift/thumbs, the timeline dates photos by when they were
        stored, and poster frames of videos answer 501 there for now. It needs
        --token-file, --token, $SKYLIFT_TOKEN or --no-auth, and --tls-cert/--tls-key for TLS.
        """,
        options: Options.specs,
        examples: [
            "skylift serve",
            "skylift serve --root ~/media --listen 0.0.0.0:8421 --token-file ~/.config/skylift/token --tls-self-signed",
            "skylift serve --store s3://media/cloud/ --s3-endpoint http://127.0.0.1:7480 --token-file ~/.config/skylift/token",
        ])

    public struct Options: CommandOptions {
        var root: String?
        var store: String?
        var listen: ListenAddress?
        var token = TokenOptions()
        var noAuth = false
        var allowHosts: [String] = []
        var tls = ServeTLS.Options()
        var tusExpiry: Double?
        var digests: Set<DigestAlgorithm>?
        var thumbnailCache: Int64?
        var thumbnailJobs: Int?
        var limits = LimitOptions()
        var log = LogOptions()
        var s3 = S3Options()

        public init() {}

        public static let declarations: [OptionDeclaration<Options>] = [
            .value("--root", "DIR", help: "folder to serve (default: $XDG_DATA_HOME/skylift/store)", \.root),
            .value("--store", "s3://BUCKET/PREFIX/", help: "serve this S3 store instead of a folder", \.store),
            .value("--listen", "HOST:PORT", help: "address to listen on (default: 127.0.0.1:8421)", \.listen, as: ListenAddress.parser),
        ] + TokenOptions.declarations.help(\.token, "require this bearer token (default: $SKYLIFT_TOKEN, else a saved one)").within(\.token) + [
            .flag("--no-auth", help: "serve without any authentication (loopback Host names only)", \.noAuth),
            AllowedHosts.declaration(help: "also answer requests whose Host is NAME (then only those and loopback)", \.allowHosts),
        ] + ServeTLS.Options.declarations.within(\.tls) + [
            .value("--tus-expiry", "SECONDS", help: "drop unfinished tus uploads after this long (default: 86400)",
                   \.tusExpiry, as: .seconds(1...31_536_000)),
            DigestOption.declaration(\.digests),
            .value("--thumbnail-cache", "SIZE", help: "most bytes of cached thumbnails, e.g. 512M, 2G (default: 512M)", \.thumbnailCache,
                   as: ValueParser(expected: "a size of at least 1M, e.g. 512M or 2G") { text in
                       ByteCount.parse(text).flatMap { $0 >= 1 << 20 ? $0 : nil }
                   }),
            .value("--thumbnail-jobs", "N", help: "thumbnails made at once (default: the number of cores, 2 to 8)",
                   \.thumbnailJobs, as: .integer(1 ... 64)),
        ] + LimitOptions.declarations.within(\.limits) + S3Options.declarations.within(\.s3)
            + LogOptions.declarations.only(\.quiet).help(\.quiet, "no access log on stderr").within(\.log)

        /// `--thumbnail-cache` and `--thumbnail-jobs` where given; the configuration's defaults elsewhere.
        func thumbnails(into configuration: inout StorageConfiguration) {
            if let bytes = thumbnailCache { configuration.thumbnailCacheBytes = bytes }
            configuration.thumbnailThreads = thumbnailJobs
        }
    }

    public static let stopsOnSignal = true

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let options = invocation.options
        try options.exclusive(\.token.token, \.token.tokenFile, \.noAuth, command: spec.name)
        try options.exclusive(\.root, \.store, command: spec.name)
        if let store = options.store { return try await serveBucket(store, options, context: context) }
        let defaults = EmbeddedCloudDefaults(environment: context.environment)
        let listen = options.listen ?? EmbeddedCloudDefaults.listen
        let root = options.root.map { URL(fileURLWithPath: $0) } ?? defaults.store
        let rootCreatedByDefault = options.root == nil

        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CommandFailure("\(Options.name(\.root)) \(root.path) is not a directory") }
        } else if rootCreatedByDefault {
            // 0700: the default store holds the user's uploads and its token file sits beside it.
            do { try PrivateFiles.createDirectory(root.path) } catch { throw CommandFailure("cannot create the store: \(error)") }
        } else {
            throw CommandFailure("\(Options.name(\.root)) \(root.path) does not exist")
        }

        let token: String?
        var tokenNote = ""
        if options.noAuth {
            token = nil
        } else if let given = try SecretOptions.token(options.token, environment: context.environment, command: spec.name) {
            token = given
        } else {
            let (t, created) = try EmbeddedCloudDefaults.loadOrCreateToken(forStore: root)
            token = t
            tokenNote = created ? " (new; saved in \(EmbeddedCloudDefaults.tokenFile(forStore: root).path))"
                : " (from \(EmbeddedCloudDefaults.tokenFile(forStore: root).path))"
        }

        let tls = try ServeTLS.resolve(options.tls, root: root, listen: listen, command: spec.name)
        let shutdown = ShutdownSignal()
        var configuration = try storageConfiguration(options, root: root, token: token, listen: listen, context: context)
        configuration.tusExpiry = options.tusExpiry ?? 86_400
        configuration.tls = tls?.identity
        options.thumbnails(into: &configuration)
        let server = try start(configuration, listen: listen)
        let signIn: String?
        do { signIn = try server.signInLink() } catch { throw CommandFailure("cannot make a sign-in link: \(error)") }
        printStart(root: root, baseURL: server.baseURL, token: token, tokenNote: tokenNote, signIn: signIn, tls: tls, listen: listen,
                   context: context)
        if server.recordedDigests.isEmpty {
            context.errors.line("skylift serve: warning: \(root.path) keeps no extended attributes: no digests are recorded, "
                + "clients verify by reading back and `skylift scrub` finds nothing to compare")
        }
        return await serveUntilSignal(server, shutdown, context: context)
    }

    /// A started server on `listen`, or a failure naming the address.
    static func start(_ configuration: StorageConfiguration, listen: ListenAddress) throws -> StorageServer {
        do {
            let server = try StorageServer(configuration: configuration, host: listen.host, port: listen.port)
            try server.start()
            return server
        } catch {
            throw CommandFailure("cannot serve on \(listen): \(error)")
        }
    }

    /// Serves until a shutdown signal, then stops (open connections end first); the exit status.
    static func serveUntilSignal(_ server: StorageServer, _ shutdown: ShutdownSignal, context: CommandContext) async -> Int32 {
        let signal = await shutdown.wait()
        context.errors.line("skylift: signal \(signal), stopping")
        server.stop()
        return 0
    }

    /// The server's settings from the options: digests, caps and deadlines, the `Host` check, the access log.
    static func storageConfiguration(_ options: Options, root: URL, token: String?, listen: ListenAddress,
                                             context: CommandContext) throws -> StorageConfiguration {
        var configuration = StorageConfiguration(root: root, token: token)
        configuration.digests = DigestOption.algorithms(options.digests)
        configuration.limits = options.limits.limits
        // Without auth the Host check is always on; with a token only when names were listed.
        if token == nil || !options.allowHosts.isEmpty {
            configuration.allowedHosts = try AllowedHosts.policy(options.allowHosts, listen: listen, command: spec.name)
        }
        configuration.accessLog = try options.log.loggers(label: "serve", context: context, command: spec.name).access
        return configuration
    }

    /// The start-up lines: what is served where, the token (only a generated one), the one-time sign-in link
    /// (also for a token from a file or the environment: it holds a code, never the token), TLS trust.
    static func printStart(root: URL, baseURL: String, token: String?, tokenNote: String, signIn: String?,
                                   tls: ServeTLS?, listen: ListenAddress, context: CommandContext) {
        context.output.line("skylift: serving \(root.path)")
        context.output.line("  url:   \(baseURL)/dav/")
        if token != nil && tokenNote.isEmpty {
            context.output.line("  token: as given")
        } else if let token {
            // Only the generated default token is shown: a token the user supplied is not echoed.
            context.output.line("  token: \(token)\(tokenNote)")
        } else {
            context.output.line("  auth:  none (--no-auth)")
        }
        // The browser sign-in link, as Jupyter prints one, but valid once and for minutes: scrollback and the
        // browser's history keep nothing that signs in again.
        context.output.line("  open:  \(signIn ?? baseURL + "/")")
        for line in tls?.startLines ?? [] { context.output.line(line) }
        if !listen.isLoopback && tls == nil {
            context.errors.line("skylift serve: warning: listening on \(listen) without TLS: the token and the web app's "
                + "session cookie cross the network in clear; use it only on a network you trust, or add --tls-self-signed")
        }
    }
}

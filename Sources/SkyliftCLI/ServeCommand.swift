import Foundation
import SkyliftCore
import SkyliftSystem
import StorageServer

/// `skylift serve`: the embedded cloud over a directory.
public enum ServeCommand: Command {
    public static let spec = CommandSpec(
        name: "serve",
        summary: "serve a folder as the embedded cloud (WebDAV, tus, ranged GET)",
        usage: "serve [--root DIR] [--listen HOST:PORT] [--token-file FILE | --token TOKEN | --no-auth] [--allow-host NAME]... [--tls-cert FILE --tls-key FILE | --tls-self-signed] [--tus-expiry SECONDS] [--digests LIST] [--quiet]",
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
        """,
        options: [
            OptionSpec("--root", "DIR", help: "folder to serve (default: $XDG_DATA_HOME/skylift/store)"),
            OptionSpec("--listen", "HOST:PORT", help: "address to listen on (default: 127.0.0.1:8421)"),
            OptionSpec("--token", "TOKEN", help: "require this bearer token (default: $SKYLIFT_TOKEN, else a saved one)"),
            SecretOptions.tokenFileOption,
            OptionSpec("--no-auth", help: "serve without any authentication (loopback Host names only)"),
            AllowedHosts.option("also answer requests whose Host is NAME (then only those and loopback)"),
        ] + ServeTLS.options + [
            OptionSpec("--tus-expiry", "SECONDS", help: "drop unfinished tus uploads after this long (default: 86400)"),
            DigestOption.option,
            OptionSpec("--quiet", help: "no access log on stderr"),
        ],
        examples: [
            "skylift serve",
            "skylift serve --root ~/media --listen 0.0.0.0:8421 --token-file ~/.config/skylift/token --tls-self-signed",
        ])

    public static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
        try arguments.exclusive(["--token", "--token-file", "--no-auth"])
        let defaults = EmbeddedCloudDefaults(environment: context.environment)
        let listen = try arguments.value("--listen").map { v throws(UsageError) in
            try ListenAddress(parsing: v, option: "--listen", command: spec.name)
        } ?? EmbeddedCloudDefaults.listen
        let expiry = try arguments.seconds("--tus-expiry", in: 1...31_536_000) ?? 86_400
        let root = arguments.value("--root").map { URL(fileURLWithPath: $0) } ?? defaults.store
        let rootCreatedByDefault = arguments.value("--root") == nil

        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CommandFailure("--root \(root.path) is not a directory") }
        } else if rootCreatedByDefault {
            // 0700: the default store holds the user's uploads and its token file sits beside it.
            do { try PrivateFiles.createDirectory(root.path) } catch { throw CommandFailure("cannot create the store: \(error)") }
        } else {
            throw CommandFailure("--root \(root.path) does not exist")
        }

        let token: String?
        var tokenNote = ""
        if arguments.flag("--no-auth") {
            token = nil
        } else if let given = try SecretOptions.token(arguments, environment: context.environment, command: spec.name) {
            token = given
        } else {
            let (t, created) = try EmbeddedCloudDefaults.loadOrCreateToken(forStore: root)
            token = t
            tokenNote = created ? " (new; saved in \(EmbeddedCloudDefaults.tokenFile(forStore: root).path))"
                : " (from \(EmbeddedCloudDefaults.tokenFile(forStore: root).path))"
        }

        let tls = try ServeTLS.resolve(arguments, root: root, listen: listen, command: spec.name)
        let shutdown = ShutdownSignal()
        let errors = context.errors
        var configuration = StorageConfiguration(root: root, token: token)
        configuration.tusExpiry = expiry
        configuration.digests = try DigestOption.algorithms(arguments, command: spec.name)
        configuration.tls = tls?.identity
        // Without auth the Host check is always on; with a token only when names were listed.
        if token == nil || !arguments.all("--allow-host").isEmpty {
            configuration.allowedHosts = try AllowedHosts.policy(arguments, listen: listen, command: spec.name)
        }
        if !arguments.flag("--quiet") {
            configuration.accessLog = { @Sendable line in errors.line(line) }
        }
        let server: StorageServer
        do {
            server = try StorageServer(configuration: configuration, host: listen.host, port: listen.port)
            try server.start()
        } catch {
            throw CommandFailure("cannot serve on \(listen): \(error)")
        }
        printStart(root: root, baseURL: server.baseURL, token: token, tokenNote: tokenNote, tls: tls, listen: listen, context: context)
        if server.recordedDigests.isEmpty {
            context.errors.line("skylift serve: warning: \(root.path) keeps no extended attributes: no digests are recorded, "
                + "clients verify by reading back and `skylift scrub` finds nothing to compare")
        }
        let signal = await shutdown.wait()
        context.errors.line("skylift: signal \(signal), stopping")
        server.stop()
        return 0
    }

    /// The start-up lines: what is served where, the token (only a generated one), the sign-in link, TLS trust.
    private static func printStart(root: URL, baseURL: String, token: String?, tokenNote: String, tls: ServeTLS?,
                                   listen: ListenAddress, context: CommandContext) {
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
        // The browser sign-in link (as Jupyter prints one) only where the token itself is shown.
        if let token, !tokenNote.isEmpty {
            context.output.line("  open:  \(baseURL)/?token=\(token)")
        } else {
            context.output.line("  open:  \(baseURL)/")
        }
        for line in tls?.startLines ?? [] { context.output.line(line) }
        if !listen.isLoopback && tls == nil {
            context.errors.line("skylift serve: warning: listening on \(listen) without TLS: the token and the web app's "
                + "session cookie cross the network in clear; use it only on a network you trust, or add --tls-self-signed")
        }
    }
}

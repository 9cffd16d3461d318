import Foundation
import SkyliftHTTPClient
import SkyliftRangeCache
import SkyliftRemotes
import SkyliftCore
import SkyliftStreamProxy
import SkyliftS3

/// `skylift proxy`: a local HTTP front that plays cloud media in any player through a range cache.
public enum ProxyCommand: Command {
    public static let spec = CommandSpec(
        name: "proxy",
        summary: "play cloud media in any player through a local caching proxy",
        usage: "proxy --origin URL [--token-file FILE | --token TOKEN] [--header-file FILE] [--header 'NAME: VALUE']... [--listen HOST:PORT] [--allow-host NAME]... [--cache-dir DIR] [--max-cache-size SIZE] [--drop-query NAME]... [--max-connections N] [--max-connections-per-address N] [--header-timeout SECONDS] [--body-timeout SECONDS] [--keepalive-timeout SECONDS] [--quiet | --verbose] [--ca-cert FILE | --pin-sha256 PIN] [--s3-endpoint URL] [--s3-addressing MODE]",
        details: """
        Serve GET http://LISTEN/<path> from <origin>/<path>, adding the origin's headers
        (a token) so players that cannot send them can play the local URL. Byte ranges
        fetched once are kept in a sparse on-disk cache and shared by every player;
        seeking starts new ranges and stops downloads nobody waits for any more.
        An s3://bucket/prefix/ origin is read with signed requests (credentials from the AWS
        environment or shared files, endpoint from --s3-endpoint or AWS_ENDPOINT_URL).
        The token comes from --token-file, --token or $SKYLIFT_TOKEN. Only requests for
        loopback names and addresses (and --allow-host names) are answered, so web pages
        cannot read the origin by DNS rebinding; paths with '..', '.' or an encoded '/' are
        refused (400), so every request stays under the origin's prefix.
        """,
        options: Options.specs,
        examples: [
            "skylift proxy --origin http://127.0.0.1:8421/dav --token-file ~/.local/share/skylift/store.token",
            "ffplay http://127.0.0.1:8422/movies/trip.mp4",
            "skylift proxy --origin s3://media/movies/ --s3-endpoint http://127.0.0.1:9000",
        ])

    public static let defaultListen = ListenAddress(host: "127.0.0.1", port: 8422)
    public static let defaultMaxCacheSize: Int64 = 2 << 30

    public struct Options: CommandOptions {
        var origin: String?
        var headers = HeaderOptions()
        var token = TokenOptions()
        var listen: ListenAddress?
        var allowHosts: [String] = []
        var cacheDirectory: String?
        var maxCacheSize: Int64?
        var dropQuery: [String] = []
        var limits = LimitOptions()
        var log = LogOptions()
        var tls = ClientTLS()
        var s3 = S3Options()

        public init() {}

        public static let declarations: [OptionDeclaration<Options>] = [
            .value("--origin", "URL", help: "base URL of the cloud files (http, https or s3://bucket/prefix/)", \.origin),
        ] + HeaderOptions.declarations.help(\.headers, "header sent to the origin").within(\.headers)
            + TokenOptions.declarations.help(\.token, "send 'Authorization: Bearer TOKEN' to the origin (default: $SKYLIFT_TOKEN)")
            .within(\.token) + [
                .value("--listen", "HOST:PORT", help: "address to listen on (default: 127.0.0.1:8422)", \.listen, as: ListenAddress.parser),
                AllowedHosts.declaration(help: "also answer requests whose Host is NAME (default: loopback only)", \.allowHosts),
                .value("--cache-dir", "DIR", help: "cache folder (default: $XDG_CACHE_HOME/skylift)", \.cacheDirectory),
                .value("--max-cache-size", "SIZE", help: "cache size limit, e.g. 500M, 2G (default: 2G)", \.maxCacheSize,
                       as: ValueParser(expected: "a size of at least 1M, e.g. 500M or 2G") { text in
                           ByteCount.parse(text).flatMap { $0 >= 1 << 20 ? $0 : nil }
                       }),
                .repeated("--drop-query", "NAME", help: "query parameter left out of cache keys", \.dropQuery),
            ] + LimitOptions.declarations.within(\.limits) + LogOptions.declarations.within(\.log) + ClientTLS.declarations.within(\.tls) + S3Options.declarations.within(\.s3)
    }

    public static let stopsOnSignal = true

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let options = invocation.options
        let (origin, isS3) = try checkedOrigin(options)
        let s3 = try S3Settings(options.s3, command: spec.name)
        let tls = try options.tls.trust(command: spec.name)
        let listen = options.listen ?? defaultListen
        let maxSize = options.maxCacheSize ?? defaultMaxCacheSize
        let allowedHosts = try AllowedHosts.policy(options.allowHosts, listen: listen, command: spec.name)
        let headers = isS3 ? HTTPHeaders() : try originHeaders(options, environment: context.environment)
        let cacheDir = options.cacheDirectory.map { URL(fileURLWithPath: $0) } ?? defaultCacheDirectory(context.environment)

        let shutdown = ShutdownSignal()
        let logs = try options.log.loggers(label: "proxy", context: context, command: spec.name)
        let cache: RangeCache
        do {
            cache = try RangeCache(configuration: .init(directory: cacheDir, maxSize: maxSize, logger: logs.events))
        } catch let error as RangeCacheError {
            throw CommandFailure("\(error)")
        }
        // s3:// origins: every request is signed; the proxy's ranged GETs carry If-Range on the object's ETag.
        let transport: any HTTPTransport
        do {
            transport = isS3 ? S3SigningTransport(client: try s3.client(transport: makeDefaultTransport(tls: tls), context: context))
                             : makeDefaultTransport(tls: tls)
        } catch {
            cache.close()
            throw error
        }
        let loader = RangeLoader(cache: cache, origin: HTTPRangeOrigin(transport: transport, headers: headers),
                                 configuration: .init(droppedQueryParameters: Set(options.dropQuery), logger: logs.events))
        var proxyConfiguration = StreamProxy.Configuration(origin: origin, host: listen.host, port: listen.port,
                                                           allowedHosts: allowedHosts, logger: logs.events, accessLog: logs.access)
        proxyConfiguration.limits = options.limits.limits
        let proxy = StreamProxy(configuration: proxyConfiguration, loader: loader)
        do {
            try proxy.start()
        } catch {
            cache.close()
            throw CommandFailure("cannot listen on \(listen): \(error)")
        }
        context.output.line("skylift: proxying \(Redaction.url(origin))")
        context.output.line("  url:   \(proxy.baseURL)/")
        context.output.line("  cache: \(cacheDir.path) (max \(ByteCount.format(maxSize)))")
        let signal = await shutdown.wait()
        context.errors.line("skylift: signal \(signal), stopping")
        proxy.stop()
        return 0
    }

    /// `--origin` as a URL, and whether it is an `s3://` one (which takes no token or header options).
    static func checkedOrigin(_ options: Options) throws(UsageError) -> (url: URL, isS3: Bool) {
        let option = Options.name(\.origin)
        guard let text = options.origin else {
            throw .invalid(command: spec.name, message: "option '\(option)' is required")
        }
        let isS3 = S3Settings.isS3(text)
        if isS3, options.token.isGiven || options.headers.isGiven {
            // They would collide with the SigV4 Authorization header and break signatures.
            let names = [\Options.token.token, \.token.tokenFile, \.headers.headers, \.headers.headerFile].map { "'\(Options.name($0))'" }
            throw .invalid(command: spec.name, message: "options \(names.dropLast().joined(separator: ", ")) and \(names.last ?? "") "
                           + "cannot be used with an s3:// origin (requests are signed with the AWS credentials)")
        }
        if isS3, (try? S3Location(parsing: text)) == nil {
            throw .badValue(command: spec.name, option: option, value: text, expected: "s3://bucket/prefix/ with a valid bucket name")
        }
        guard let origin = URL(string: text), let scheme = origin.scheme?.lowercased(),
              scheme == "http" || scheme == "https" || isS3, origin.host?.isEmpty == false else {
            throw .badValue(command: spec.name, option: option, value: Redaction.url(text), expected: "an http://, https:// or s3:// URL")
        }
        return (origin, isS3)
    }

    /// `--header`, `--header-file` and the token (`--token`, `--token-file`, `$SKYLIFT_TOKEN`) as origin
    /// headers. Values are secrets: errors name the option or file, never the value.
    static func originHeaders(_ options: Options, environment: [String: String]) throws -> HTTPHeaders {
        var headers = try SecretOptions.headers(options.headers, command: spec.name)
        if let token = try SecretOptions.token(options.token, environment: environment, command: spec.name) {
            headers.set("Authorization", "Bearer \(token)")
        }
        return headers
    }

    /// `$XDG_CACHE_HOME/skylift`, else `~/.cache/skylift`.
    static func defaultCacheDirectory(_ environment: [String: String]) -> URL {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("skylift")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/skylift")
    }
}

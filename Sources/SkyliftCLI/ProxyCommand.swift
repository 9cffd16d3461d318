import Foundation
import HTTPClient
import RangeCache
import Remotes
import SkyliftCore
import StreamProxy

/// `skylift proxy`: a local HTTP front that plays cloud media in any player through a range cache.
public enum ProxyCommand: Command {
    public static let spec = CommandSpec(
        name: "proxy",
        summary: "play cloud media in any player through a local caching proxy",
        usage: "proxy --origin URL [--header 'NAME: VALUE']... [--token TOKEN] [--listen HOST:PORT] [--cache-dir DIR] [--max-cache-size SIZE] [--drop-query NAME]... [--quiet] [--s3-endpoint URL] [--s3-addressing MODE]",
        details: """
        Serve GET http://LISTEN/<path> from <origin>/<path>, adding the origin's headers
        (a token) so players that cannot send them can play the local URL. Byte ranges
        fetched once are kept in a sparse on-disk cache and shared by every player;
        seeking starts new ranges and stops downloads nobody waits for any more.
        An s3://bucket/prefix/ origin is read with signed requests (credentials from the AWS
        environment or shared files, endpoint from --s3-endpoint or AWS_ENDPOINT_URL).
        """,
        options: [
            OptionSpec("--origin", "URL", help: "base URL of the cloud files (http, https or s3://bucket/prefix/)"),
            OptionSpec("--header", "'NAME: VALUE'", help: "header sent to the origin", repeatable: true),
            OptionSpec("--token", "TOKEN", help: "send 'Authorization: Bearer TOKEN' to the origin"),
            OptionSpec("--listen", "HOST:PORT", help: "address to listen on (default: 127.0.0.1:8422)"),
            OptionSpec("--cache-dir", "DIR", help: "cache folder (default: $XDG_CACHE_HOME/skylift)"),
            OptionSpec("--max-cache-size", "SIZE", help: "cache size limit, e.g. 500M, 2G (default: 2G)"),
            OptionSpec("--drop-query", "NAME", help: "query parameter left out of cache keys", repeatable: true),
            OptionSpec("--quiet", help: "no request log on stderr"),
        ] + S3Settings.optionSpecs,
        examples: [
            "skylift proxy --origin http://127.0.0.1:8421/dav --token \"$TOKEN\"",
            "ffplay http://127.0.0.1:8422/movies/trip.mp4",
            "skylift proxy --origin s3://media/movies/ --s3-endpoint http://127.0.0.1:9000",
        ])

    public static let defaultListen = ListenAddress(host: "127.0.0.1", port: 8422)
    public static let defaultMaxCacheSize: Int64 = 2 << 30

    public static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> Int32 {
        guard let originText = arguments.value("--origin") else {
            throw UsageError.invalid(command: spec.name, message: "option '--origin' is required")
        }
        let s3 = try S3Settings(arguments, command: spec.name)
        let isS3 = S3Settings.isS3(originText)
        if isS3, arguments.value("--token") != nil || !arguments.all("--header").isEmpty {
            // They would collide with the SigV4 Authorization header and break signatures.
            throw UsageError.invalid(command: spec.name, message: "options '--token' and '--header' cannot be used with an s3:// origin (requests are signed with the AWS credentials)")
        }
        if isS3, (try? S3Location(parsing: originText)) == nil {
            throw UsageError.badValue(command: spec.name, option: "--origin", value: originText, expected: "s3://bucket/prefix/ with a valid bucket name")
        }
        guard let origin = URL(string: originText), let scheme = origin.scheme?.lowercased(),
              scheme == "http" || scheme == "https" || isS3, origin.host?.isEmpty == false else {
            // Only up to the query: a signed URL's query holds its signature.
            throw UsageError.badValue(command: spec.name, option: "--origin", value: String(originText.prefix { $0 != "?" }),
                                      expected: "an http://, https:// or s3:// URL")
        }
        let listen = try arguments.value("--listen").map { v throws(UsageError) in
            try ListenAddress(parsing: v, option: "--listen", command: spec.name)
        } ?? defaultListen
        var maxSize = defaultMaxCacheSize
        if let text = arguments.value("--max-cache-size") {
            guard let size = ByteCount.parse(text), size >= 1 << 20 else {
                throw UsageError.badValue(command: spec.name, option: "--max-cache-size", value: text,
                                          expected: "a size of at least 1M, e.g. 500M or 2G")
            }
            maxSize = size
        }
        let headers = try originHeaders(arguments)
        let cacheDir = arguments.value("--cache-dir").map { URL(fileURLWithPath: $0) } ?? defaultCacheDirectory(context.environment)

        let shutdown = ShutdownSignal()
        let errors = context.errors
        let quiet = arguments.flag("--quiet")
        let log: @Sendable (String) -> Void = { line in
            // Requests are noise under --quiet; cache and origin trouble is always worth a line.
            if !quiet || !line.hasPrefix("GET ") && !line.hasPrefix("HEAD ") { errors.line(line) }
        }
        let cache: RangeCache
        do {
            cache = try RangeCache(configuration: .init(directory: cacheDir, maxSize: maxSize, log: log))
        } catch let error as RangeCacheError {
            throw CommandFailure("\(error)")
        }
        // s3:// origins: every request is signed; the proxy's ranged GETs carry If-Range on the object's ETag.
        let transport: any HTTPTransport
        do {
            transport = isS3 ? S3SigningTransport(client: try s3.client(transport: makeDefaultTransport(), context: context))
                             : makeDefaultTransport()
        } catch {
            cache.close()
            throw error
        }
        let loader = RangeLoader(cache: cache, origin: HTTPRangeOrigin(transport: transport, headers: headers),
                                 configuration: .init(droppedQueryParameters: Set(arguments.all("--drop-query")), log: log))
        let proxy = StreamProxy(configuration: .init(origin: origin, host: listen.host, port: listen.port, log: log),
                                loader: loader)
        do {
            try proxy.start()
        } catch {
            cache.close()
            throw CommandFailure("cannot listen on \(listen): \(error)")
        }
        context.output.line("skylift: proxying \(RangeOriginError.display(origin))")
        context.output.line("  url:   \(proxy.baseURL)/")
        context.output.line("  cache: \(cacheDir.path) (max \(ByteCount.format(maxSize)))")
        let signal = await shutdown.wait()
        context.errors.line("skylift: signal \(signal), stopping")
        proxy.stop()
        return 0
    }

    /// `--header` and `--token` as origin headers. Values are secrets: errors name the option, not the value.
    static func originHeaders(_ arguments: ParsedArguments) throws -> HTTPHeaders {
        var headers = HTTPHeaders()
        for raw in arguments.all("--header") {
            guard let colon = raw.firstIndex(of: ":") else {
                throw UsageError.invalid(command: spec.name, message: "option '--header' needs 'NAME: VALUE' (no ':' found)")
            }
            let name = raw[..<colon].trimmingCharacters(in: .whitespaces)
            let value = raw[raw.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(token.contains) else {
                throw UsageError.invalid(command: spec.name, message: "option '--header' has an invalid header name")
            }
            headers.add(name, value)
        }
        if let token = arguments.value("--token") {
            guard !token.isEmpty else {
                throw UsageError.invalid(command: spec.name, message: "option '--token' needs a non-empty token")
            }
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

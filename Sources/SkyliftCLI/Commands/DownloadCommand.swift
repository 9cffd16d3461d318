import SkyliftDownloads
import SkyliftFolderWatch
import Foundation
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore
import SkyliftS3

/// `skylift download SOURCE... DEST_DIR`: bring cloud folders and files back, resumably and checked.
public enum DownloadCommand: Command {
    public static let spec = CommandSpec(
        name: "download",
        summary: "bring cloud folders and files back, resumably, checked against served digests",
        usage: "download SOURCE... DEST_DIR [--token-file FILE | --token TOKEN] [--header-file FILE] [--header 'NAME: VALUE']... [--jobs N] [--parts N] [--include GLOB]... [--exclude GLOB]... [--delete] [--verify] [--json] [--ca-cert FILE | --pin-sha256 PIN] [--s3-endpoint URL] [--s3-addressing MODE]",
        details: """
        SOURCE is a folder or file URL of the embedded cloud or any WebDAV server (walked with
        PROPFIND Depth 1, folder by folder), an http(s) file URL, or s3://bucket/prefix/ or
        s3://bucket/key. A folder's contents land in DEST_DIR with their layout and file times;
        a file lands as DEST_DIR/NAME. Each file is written to a hidden .NAME.skylift-part
        beside its place and renamed in only when complete and checked against the digest the
        remote serves (Repr-Digest, PROPFIND checksums, S3 single-part ETag); a mismatch is
        fetched once more. After a crash the same command continues where the bytes stopped,
        unless the remote file changed (its ETag), which starts that file over. Files already
        there with the same size and digest (or size and time) are skipped. --delete removes
        local files below DEST_DIR that a folder SOURCE no longer has.
        """,
        options: Options.specs,
        positionals: 2...Int.max,
        positionalCompletions: [.none, .directories],
        examples: [
            "skylift download http://127.0.0.1:8421/dav/ ~/Pictures --token-file ~/.local/share/skylift/store.token",
            "skylift download http://127.0.0.1:8421/dav/2026/ ~/restore --jobs 8 --include '*.jpg' --json",
            "skylift download s3://media/camera/ /srv/camera --s3-endpoint http://127.0.0.1:9000 --delete",
            "skylift download https://dav.example/files/me/clip.mp4 . --header-file ~/.config/skylift/cloud.headers --parts 4",
        ])

    public struct Options: CommandOptions {
        var token = TokenOptions()
        var headers = HeaderOptions()
        var jobs: Int?
        var parts: Int?
        var include: [String] = []
        var exclude: [String] = []
        var delete = false
        var verify = false
        var json = false
        var tls = ClientTLS()
        var s3 = S3Options()

        public init() {}

        public static let declarations: [OptionDeclaration<Options>] = TokenOptions.declarations.within(\.token)
            + HeaderOptions.declarations.help(\HeaderOptions.headers, "send this header with every request to SOURCE").within(\.headers) + [
                .value("--jobs", "N", help: "files downloaded at once (default: 4)", \.jobs, as: .integer(1...64)),
                PartsInFlight.declaration(\.parts).help("ranges of one file of 8 MiB or more read at once (default: 1)"),
                .repeated("--include", "GLOB", help: "only files matching GLOB (a name, or a path if it holds '/'); repeatable", \.include),
                .repeated("--exclude", "GLOB", help: "leave out files and folders matching GLOB; repeatable", \.exclude),
                .flag("--delete", help: "remove local files below DEST_DIR that a folder SOURCE no longer has", \.delete),
                .flag("--verify", help: "fail files the remote serves no digest for", \.verify),
                .flag("--json", help: "print one JSON object per event instead of progress lines", \.json),
            ] + ClientTLS.declarations.within(\.tls) + S3Options.declarations.within(\.s3)
    }

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let options = invocation.options
        var sources = invocation.positionals
        let destination = sources.removeLast()
        let s3 = try S3Settings(options.s3, command: spec.name)
        // Little read ahead (1 MiB in the process, 512 KiB in the kernel, not 4 MiB and up to tcp_rmem's maximum):
        // what is read ahead when the process is killed is fetched again by the next run.
        let transport = CurlTransport(configuration: .init(responseBufferSize: 1 << 20, tls: try options.tls.trust(command: spec.name),
                                                           receiveWindow: 512 << 10))
        let token = try SecretOptions.token(options.token, environment: context.environment, command: spec.name)
        let http = RemoteHTTP(transport: transport, headers: RemoteHTTP.headers(token: token, extra: try SecretOptions.headers(options.headers, command: spec.name)))
        var origins: [any DownloadOrigin] = []
        for source in sources {
            if S3Settings.isS3(source) {
                guard (try? S3Location(parsing: source)) != nil else {
                    throw UsageError.badValue(command: spec.name, option: "SOURCE", value: source, expected: "s3://bucket/prefix/ or s3://bucket/key")
                }
                origins.append(S3Origin(remote: try s3.remote(source, transport: transport, environment: context.environment), label: source))
            } else if let url = URL(string: source), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil {
                origins.append(WebDAVOrigin(url: url, http: http))
            } else {
                throw UsageError.badValue(command: spec.name, option: "SOURCE", value: source, expected: "an http(s) URL or s3://bucket/prefix/")
            }
        }
        let filter = try pathFilter(include: options.include, exclude: options.exclude)
        let downloader = Downloader(destination: URL(fileURLWithPath: destination).standardizedFileURL.path, options: DownloadOptions(
            jobs: options.jobs ?? 4, parts: options.parts ?? 1, verify: options.verify, delete: options.delete))
        let reporter = DownloadReporter(mode: options.json ? .json : (context.isTerminal ? .live : .plain), context: context)
        let summary = await downloader.run(origins, filter: filter) { reporter.report($0, $1) }
        reporter.finish(summary)
        if !options.json {
            for failure in summary.failed { context.errors.line("skylift download: \(failure.error)") }
        }
        return summary.failed.isEmpty ? 0 : 1
    }

    /// `--include`/`--exclude` as a filter: a pattern without `/` is tested against the name, one with `/`
    /// against the path below the source (as `watch --ignore` does); an excluded folder is not walked.
    static func pathFilter(include: [String], exclude: [String]) throws(UsageError) -> PathFilter {
        func parse(_ patterns: [String], _ option: String) throws(UsageError) -> [(glob: Glob, wholePath: Bool)] {
            var out: [(glob: Glob, wholePath: Bool)] = []
            for raw in patterns {
                let pattern = raw.hasPrefix("/") ? String(raw.dropFirst()) : raw
                guard !pattern.isEmpty, let glob = try? Glob(pattern) else {
                    throw .badValue(command: spec.name, option: option, value: raw, expected: "a glob such as '*.jpg' or 'raw/**'")
                }
                out.append((glob, pattern.contains("/")))
            }
            return out
        }
        let includes = try parse(include, "--include"), excludes = try parse(exclude, "--exclude")
        @Sendable func matches(_ rules: [(glob: Glob, wholePath: Bool)], _ path: String) -> Bool {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            return rules.contains { $0.glob.matches($0.wholePath ? path : name) }
        }
        let (inc, exc) = (includes, excludes)
        return PathFilter(takesFile: { path in (inc.isEmpty || matches(inc, path)) && !matches(exc, path) },
                          entersFolder: { path in !matches(exc, path) })
    }
}

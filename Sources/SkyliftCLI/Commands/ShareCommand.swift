import Foundation
import SkyliftStorageServer
import SkyliftWebApp

/// `skylift share`: read-only links to a file or folder of the embedded cloud, listed and revocable by id.
public enum ShareCommand: Command {
    public static let spec = CommandSpec(
        name: "share",
        summary: "make, list or revoke read-only links to a file or folder of the embedded cloud",
        usage: "share PATH [--expires 7d] [--root DIR | --store s3://BUCKET/PREFIX/] [--url URL] | share --list | share --revoke ID",
        details: """
        Make a read-only link to PATH (a file or folder of the store, e.g. /movies/trip.mp4). The
        link carries its expiry and is signed with the server's secret; it opens the file (with
        ranges, so players can seek) or the folder's browse page, and nothing else. An expired
        link answers 410, a revoked one 403. Links are kept in the store's state folder, so a
        running `skylift serve` on the same --root honours them at once; with --store they are
        kept in the bucket, for every `skylift serve --store` instance on it.
        """,
        options: Options.specs,
        positionals: 0...1,
        examples: [
            "skylift share /movies/trip.mp4 --expires 2d",
            "skylift share /photos/2026/ --url http://192.168.1.20:8421",
            "skylift share --list",
            "skylift share --revoke 3f9c2a7d10b4e685",
            "skylift share /films/trip.mp4 --store s3://media/cloud/ --url https://cloud.lan",
        ])

    public struct Options: CommandOptions {
        var expires: String?
        var root: String?
        var store: String?
        var url: String?
        var list = false
        var revoke: String?
        var s3 = S3Options()

        public init() {}

        public static let declarations: [OptionDeclaration<Options>] = [
            .value("--expires", "DURATION", help: "lifetime: 30m, 12h, 7d (default: 7d, at most a year)", \.expires),
            .value("--root", "DIR", help: "the served folder (default: $XDG_DATA_HOME/skylift/store)", \.root),
            .value("--store", "s3://BUCKET/PREFIX/", help: "the S3 store a serve --store serves, instead of a folder", \.store),
            .value("--url", "URL", help: "the server's address for the printed link (default: http://127.0.0.1:8421)", \.url),
            .flag("--list", help: "list the links: id, expiry, path", \.list),
            .value("--revoke", "ID", help: "revoke the link with this id", \.revoke),
        ] + S3Options.declarations.within(\.s3)
    }

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let options = invocation.options, positionals = invocation.positionals
        try options.exclusive(\.list, \.revoke, command: spec.name)
        let lifetimeText = options.expires ?? "7d"
        guard let lifetime = Shares.lifetime(lifetimeText) else {
            throw UsageError.badValue(command: spec.name, option: Options.name(\.expires), value: lifetimeText,
                                      expected: "a duration like 30m, 12h or 7d, at most a year")
        }
        try options.exclusive(\.root, \.store, command: spec.name)
        let (shares, isFolder, storeName) = try open(options, context: context)

        if options.list {
            guard positionals.isEmpty else { throw UsageError.invalid(command: spec.name, message: "\(Options.name(\.list)) takes no PATH") }
            let now = Date().timeIntervalSince1970
            for s in try shares.list() {
                let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(s.expires)))
                context.output.line("\(s.id)  \(Double(s.expires) <= now ? "expired" : "expires") \(when)  /\(s.path.joined(separator: "/"))")
            }
            return 0
        }
        if let id = options.revoke {
            guard positionals.isEmpty else { throw UsageError.invalid(command: spec.name, message: "\(Options.name(\.revoke)) takes no PATH") }
            guard try shares.revoke(id: id) else { throw CommandFailure("no share link with id \(id)") }
            context.output.line("revoked \(id)")
            return 0
        }
        guard let path = positionals.first else {
            throw UsageError.wrongArgumentCount(command: spec.name, expected: "a PATH to share, --list or --revoke ID")
        }
        let segments = path.split(separator: "/").map(String.init)
        if segments.contains(where: { $0 == "." || $0 == ".." || $0.hasPrefix(".skylift-") }) {
            throw CommandFailure("\(path): not a path inside the store")
        }
        guard let folder = try await isFolder(segments) else {
            throw CommandFailure("\(path): no such file or folder in \(storeName)")
        }
        let base = (options.url ?? "http://\(EmbeddedCloudDefaults.listen)").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let made = try shares.create(path: segments, expires: Date().addingTimeInterval(lifetime))
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#%;"))
        let suffix = folder || segments.isEmpty ? "/" : "/" + (segments.last?.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        context.output.line("\(base)/s/\(made.link)\(suffix)")
        context.output.line("id \(made.share.id), expires \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(made.share.expires))))")
        return 0
    }

    /// The store's share links, a way to tell whether a path of it is a folder (nil: nothing there), and its name.
    private static func open(_ options: Options, context: CommandContext) throws
        -> (Shares, ([String]) async throws -> Bool?, String) {
        if let text = options.store {
            let store = try S3Settings.store(text, option: "--store", options.s3, command: spec.name, context: context)
            let shares: Shares
            do { shares = try StorageServer.shares(bucket: store) } catch { throw CommandFailure("\(error)") }
            return (shares, { segments in
                do { return try await store.stat(segments.joined(separator: "/")).map { $0.kind == .folder } } catch {
                    throw CommandFailure("cannot look up /\(segments.joined(separator: "/")) in \(store.location): \(error)")
                }
            }, store.location)
        }
        let root = try EmbeddedCloudDefaults.existingStore(options.root, option: Options.name(\.root), environment: context.environment)
        let shares: Shares
        do {
            let state = try WebState(root: root.path)
            shares = Shares(state: state, secret: try state.secret())
        } catch { throw CommandFailure("\(error)") }
        return (shares, { segments in
            var isDirectory: ObjCBool = false
            let full = ([root.path] + segments).joined(separator: "/")
            return FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory) ? isDirectory.boolValue : nil
        }, root.path)
    }
}

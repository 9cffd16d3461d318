import Foundation
import SkyliftHashing
import SkyliftCore
import SkyliftStorageServer

/// `skylift scrub`: re-read the store and compare every file with its digest record.
public enum ScrubCommand: Command {
    public static let spec = CommandSpec(
        name: "scrub",
        summary: "re-read the stored files and check them against their digests",
        usage: "scrub [--root DIR | --root s3://BUCKET/PREFIX/] [--rate BYTES] [--digests LIST] [--no-record] [--json] [--s3-endpoint URL] [--s3-addressing MODE]",
        details: """
        Re-read every file of the embedded cloud's store and compare it with the digest `skylift
        serve` recorded when the file was written. Every mismatch (the bytes changed but the size,
        mtime and inode did not: rot, or a write that kept the mtime) and every file without a
        record (never written through the server, or changed behind its back) is reported. Files
        without a record are hashed and recorded now, so the next scrub checks them, unless
        --no-record is given. With --rate the reading is limited to BYTES per second (suffixes K,
        M, G), so a scrub can run in the background beside the server. The result is kept in the
        store and shown by `skylift status`. Links are never followed; special files, whatever
        lies on another file system or mount (a mount point below the store) and folders
        \(StoreScrub.maxDepth) deep are not entered or read: each is listed as skipped. With --root
        s3://bucket/prefix/ the store is one that S3Store keeps in a bucket: every object is read
        back and checked against the SHA-256 in its metadata, an object without one gets it (only
        while it is still the object read), and the report is kept in the bucket. Exit status 1
        when a file mismatched or could not be read.
        """,
        options: Options.specs,
        examples: [
            "skylift scrub",
            "skylift scrub --root ~/media --rate 50M --json",
            "skylift scrub --root s3://media/cloud/ --s3-endpoint http://127.0.0.1:7480",
        ])

    public struct Options: CommandOptions {
        var root: String?
        var rate: Int64?
        var digests: Set<DigestAlgorithm>?
        var noRecord = false
        var json = false
        var s3 = S3Options()

        public init() {}

        public static let declarations: [OptionDeclaration<Options>] = [
            .value("--root", "DIR", help: "store to check (default: $XDG_DATA_HOME/skylift/store)", \.root),
            .value("--rate", "BYTES", help: "read at most BYTES per second (e.g. 50M)", \.rate,
                   as: ValueParser(expected: "a byte count per second such as 50M") { text in
                       ByteCount.parse(text).flatMap { $0 > 0 ? $0 : nil }
                   }),
            DigestOption.declaration(\.digests),
            .flag("--no-record", help: "only report files without a record; do not record them", \.noRecord),
            .flag("--json", help: "print the report as one JSON object", \.json),
        ] + S3Options.declarations.within(\.s3)
    }

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let options = invocation.options
        let json = options.json
        let live = context.isTerminal && !json
        var lastDraw = Date.distantPast
        let draw = { (p: StoreScrub.Progress) in
            guard live, Date().timeIntervalSince(lastDraw) >= 0.25 || p.files == p.totalFiles else { return }
            lastDraw = Date()
            context.errors.write("\r\u{1B}[K" + progressLine(p))
        }
        let report: ScrubReport
        if let root = options.root, S3Settings.isS3(root) {
            let store = try S3Settings.store(root, option: "--root", options.s3, command: spec.name, context: context)
            do { report = try await S3StoreScrub(store: store, rate: options.rate, record: !options.noRecord).run(progress: draw) } catch {
                throw CommandFailure("\(store.location): \(error)")
            }
        } else {
            let root = options.root.map { URL(fileURLWithPath: $0) } ?? EmbeddedCloudDefaults(environment: context.environment).store
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandFailure("store \(root.path) is not a directory")
            }
            let scrub = StoreScrub(root: root, rate: options.rate, record: !options.noRecord,
                                   algorithms: DigestOption.algorithms(options.digests))
            do { report = try scrub.run(progress: draw) } catch { throw CommandFailure("\(error)") }
        }
        if live { context.errors.write("\r\u{1B}[K") }
        if json {
            context.output.line(report.json)
        } else {
            context.output.write(TerminalText.safe(text(report)))
        }
        return report.damaged.isEmpty ? 0 : 1
    }

    static func progressLine(_ p: StoreScrub.Progress) -> String {
        let percent = p.totalBytes > 0 ? " (\(min(100, p.bytes * 100 / p.totalBytes))%)" : ""
        return "scrub: \(p.files)/\(p.totalFiles) files, \(ByteCount.format(p.bytes)) of \(ByteCount.format(p.totalBytes))\(percent)"
    }

    /// The human report: one summary line, then one line per finding.
    static func text(_ report: ScrubReport) -> String {
        var lines = [summary(report)]
        for finding in report.findings {
            lines.append("  \(finding.kind.rawValue): \(finding.path)" + (finding.detail.map { " (\($0))" } ?? ""))
        }
        for skip in report.skipped {
            lines.append("  skipped (\(skip.reason.rawValue)): \(skip.path)" + (skip.detail.map { " (\($0))" } ?? ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// "N files, SIZE: M ok, X mismatched, Y unrecorded (Z recorded now), …" — shared with `status`.
    static func summary(_ report: ScrubReport) -> String {
        var parts = ["\(report.matched) ok", "\(report.count(.mismatch)) mismatched",
                     "\(report.count(.unrecorded)) unrecorded" + (report.recorded > 0 ? " (\(report.recorded) recorded now)" : "")]
        if report.count(.changed) > 0 { parts.append("\(report.count(.changed)) changed while read") }
        if report.count(.unreadable) > 0 { parts.append("\(report.count(.unreadable)) unreadable") }
        if !report.skipped.isEmpty { parts.append("\(report.skipped.count) skipped") }
        return "\(report.root): \(report.files) files, \(ByteCount.format(report.bytes)): " + parts.joined(separator: ", ")
    }
}

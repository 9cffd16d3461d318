import SkyliftAutoUpload
import Foundation
import SkyliftCore
import SkyliftUploads

/// `skylift status`: what the watch agent's queue holds.
public enum StatusCommand: Command {
    public static let spec = CommandSpec(
        name: "status",
        summary: "show the watch queue and the store's last scrub",
        usage: "status [--state DIR] [--root DIR | --root s3://BUCKET/PREFIX/] [--json] [--s3-endpoint URL] [--s3-addressing MODE]",
        details: """
        Show what `skylift watch` has queued: how many files are pending, uploading, waiting
        (for space on a full server), done and failed, the uploads in flight with their progress,
        the files waiting for space with what the server kept, and the latest errors. Reads the
        queue without disturbing a running agent. Without --state, every watched folder under
        $XDG_STATE_HOME/skylift/watch is shown. Then, for the store given with --root (without
        --state, also the default store when it exists), when it was last checked by `skylift
        scrub` and what that found; an s3://bucket/prefix/ store's report is read from its bucket.
        """,
        options: Options.specs,
        examples: [
            "skylift status",
            "skylift status --root s3://media/cloud/ --s3-endpoint http://127.0.0.1:7480",
        ])

    public struct Options: CommandOptions {
        var state: String?
        var root: String?
        var json = false
        var s3 = S3Options()

        public init() {}

        public static let declarations: [OptionDeclaration<Options>] = [
            .value("--state", "DIR", help: "the state folder given to `skylift watch --state`", \.state),
            .value("--root", "DIR", help: "also show the last scrub of this store (a folder or s3://bucket/prefix/)", \.root),
            .flag("--json", help: "print one JSON object per watched folder (and per store)", \.json),
        ] + S3Options.declarations.within(\.s3)
    }

    public static func run(_ invocation: Invocation<Options>, context: CommandContext) async throws -> Int32 {
        let states: [URL]
        if let given = invocation.options.state {
            states = [URL(fileURLWithPath: given)]
        } else {
            let parent = ResumeFileStore.defaultDirectory(environment: context.environment).appendingPathComponent("watch")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
            states = names.sorted().map { parent.appendingPathComponent($0) }
                .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent(UploadQueue.fileName).path) }
            if states.isEmpty {
                context.output.line("no watched folders (nothing under \(parent.path))")
            }
        }
        for state in states {
            let status: QueueStatus
            do {
                status = try await UploadQueue(readingStateIn: state).status()
            } catch {
                throw CommandFailure(error.description)
            }
            if invocation.options.json {
                context.output.line(json(status, state: state))
            } else {
                context.output.write(TerminalText.safe(text(status, state: state)))
            }
        }
        if let root = invocation.options.root, S3Settings.isS3(root) {
            try await showScrub(ofS3: root, invocation.options, context: context)
        } else if let store = storeToShow(invocation.options, environment: context.environment) {
            showScrub(of: store, json: invocation.options.json, output: context.output)
        }
        return 0
    }

    static func text(_ status: QueueStatus, state: URL) -> String {
        var lines = ["\(status.root) (state \(state.path))"]
        lines.append("  " + UploadState.allCases.map { "\($0.rawValue) \(status.counts[$0] ?? 0)" }.joined(separator: "  "))
        if !status.inFlight.isEmpty {
            lines.append("  in flight:")
            for file in status.inFlight {
                let percent = file.size > 0 ? " (\(file.sent * 100 / file.size)%)" : ""
                lines.append("    \(file.path)  \(ByteCount.format(file.sent)) of \(ByteCount.format(file.size))\(percent)")
            }
        }
        if !status.waiting.isEmpty {
            lines.append("  waiting for space:")
            let now = UploadQueue.now()
            for file in status.waiting {
                let retry = file.retryAt.map { " (retry in \(max(0, Int(($0 - now).rounded(.up)))) s)" } ?? ""
                lines.append("    \(file.path)  \(WatchOutput.kept(file.sent, file.size)) kept on the server\(retry)")
            }
        }
        if !status.lastErrors.isEmpty {
            lines.append("  last errors:")
            let now = UploadQueue.now()
            for file in status.lastErrors {
                let retry = file.retryAt.map { " (retry in \(max(0, Int(($0 - now).rounded(.up)))) s)" } ?? ""
                lines.append("    \(file.path): \(file.reason ?? "unknown")\(retry)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func json(_ status: QueueStatus, state: URL) -> String {
        let object: [String: Any] = [
            "dir": status.root,
            "state": state.path,
            "counts": Dictionary(uniqueKeysWithValues: UploadState.allCases.map { ($0.rawValue, status.counts[$0] ?? 0) }),
            "in_flight": status.inFlight.map { ["path": $0.path, "sent": $0.sent, "size": $0.size] as [String: Any] },
            "errors": status.lastErrors.map { ["path": $0.path, "reason": $0.reason ?? "", "retry_at": $0.retryAt ?? 0] as [String: Any] },
            "waiting_for_space": status.waiting.map { ["path": $0.path, "kept": $0.sent, "size": $0.size, "retry_at": $0.retryAt ?? 0] as [String: Any] },
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

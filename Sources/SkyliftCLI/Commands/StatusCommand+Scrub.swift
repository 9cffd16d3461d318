import Foundation
import SkyliftStorageServer

// `skylift status`: the store's last scrub (see `skylift scrub`).
extension StatusCommand {
    /// `--root`, else (when no `--state` narrows the output) the default store if there is one.
    static func storeToShow(_ options: Options, environment: [String: String]) -> URL? {
        if let root = options.root { return S3Settings.isS3(root) ? nil : URL(fileURLWithPath: root) }
        guard options.state == nil else { return nil }
        let store = EmbeddedCloudDefaults(environment: environment).store
        return FileManager.default.fileExists(atPath: store.path) ? store : nil
    }

    static func showScrub(of store: URL, json: Bool, output: TextSink) {
        showScrub(named: store.path, report: ScrubReport.load(root: store), json: json, output: output)
    }

    /// The last scrub of the S3 store `root` names, read from its bucket.
    static func showScrub(ofS3 root: String, _ options: Options, context: CommandContext) async throws {
        let store = try S3Settings.store(root, option: "--root", options.s3, command: spec.name, context: context)
        let report: ScrubReport?
        do { report = try await store.lastScrubReport() } catch { throw CommandFailure("\(store.location): \(error)") }
        showScrub(named: store.location, report: report, json: options.json, output: context.output)
    }

    /// The store `name` (a path or `s3://…`) and its last scrub's `report` (nil: never scrubbed).
    static func showScrub(named name: String, report: ScrubReport?, json: Bool, output: TextSink) {
        if json {
            var object: [String: Any] = ["store": name]
            if let report, let data = report.json.data(using: .utf8),
               let parsed = try? JSONSerialization.jsonObject(with: data) {
                object["last_scrub"] = parsed
            }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
            output.line(String(decoding: data, as: UTF8.self))
            return
        }
        guard let report else {
            output.line("\(name): never scrubbed (run `skylift scrub --root \(name)`)")
            return
        }
        output.line("last scrub \(ISO8601DateFormatter().string(from: report.finished)), "
                    + "\(Int(report.finished.timeIntervalSince(report.started).rounded())) s")
        output.line("  " + ScrubCommand.summary(report))
        for finding in report.damaged.prefix(20) {
            output.line("  \(finding.kind.rawValue): \(finding.path)")
        }
        if report.damaged.count > 20 { output.line("  … \(report.damaged.count - 20) more (see `skylift scrub --json`)") }
    }
}

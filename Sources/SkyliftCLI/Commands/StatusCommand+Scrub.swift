import Foundation
import SkyliftStorageServer

// `skylift status`: the store's last scrub (see `skylift scrub`).
extension StatusCommand {
    /// `--root`, else (when no `--state` narrows the output) the default store if there is one.
    static func storeToShow(_ options: Options, environment: [String: String]) -> URL? {
        if let root = options.root { return URL(fileURLWithPath: root) }
        guard options.state == nil else { return nil }
        let store = EmbeddedCloudDefaults(environment: environment).store
        return FileManager.default.fileExists(atPath: store.path) ? store : nil
    }

    static func showScrub(of store: URL, json: Bool, output: TextSink) {
        let report = ScrubReport.load(root: store)
        if json {
            var object: [String: Any] = ["store": store.path]
            if let report, let data = report.json.data(using: .utf8),
               let parsed = try? JSONSerialization.jsonObject(with: data) {
                object["last_scrub"] = parsed
            }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
            output.line(String(decoding: data, as: UTF8.self))
            return
        }
        guard let report else {
            output.line("\(store.path): never scrubbed (run `skylift scrub --root \(store.path)`)")
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

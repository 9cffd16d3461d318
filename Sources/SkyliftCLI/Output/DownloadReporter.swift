import SkyliftDownloads
import Foundation
import SkyliftCore
import Synchronization

/// Turns download events into output: one live status line on a terminal (files and bytes done of those
/// listed, rate, the file in progress), plain lines in a pipe, or one JSON object per event with `--json`
/// (the names `skylift upload` uses: `started`, `progress`, `resumed`, `restarted`, `retried`, `skipped`,
/// `done`, `failed`, plus `listed` and `deleted`).
final class DownloadReporter: Sendable {
    enum Mode { case live, plain, json }

    private struct State {
        var files = 0, finished = 0, failed = 0, skipped = 0
        var bytes: Int64 = 0
        var onDisk: [String: Int64] = [:]
        var doneBytes: Int64 = 0
        var rates: [String: Double] = [:]
        var current = ""
        var lastDraw = 0.0
    }

    private let state = Mutex(State())
    private let mode: Mode
    private let context: CommandContext

    init(mode: Mode, context: CommandContext) {
        self.mode = mode
        self.context = context
    }

    func report(_ path: String, _ event: DownloadEvent) {
        state.withLock { s in
            track(&s, path, event)
            if let (object, plain) = Self.describe(path, event) {
                switch mode {
                case .json: emit(object)
                case .plain: if let plain { context.output.line(plain) }
                case .live: break
                }
            }
            let now = Date().timeIntervalSince1970
            if mode == .live, now - s.lastDraw >= 0.25 {
                s.lastDraw = now
                draw(s, final: false)
            }
        }
    }

    /// The last status line (live), or a summary line.
    func finish(_ summary: DownloadSummary) {
        state.withLock { s in
            switch mode {
            case .live: draw(s, final: true)
            case .plain:
                context.output.line("\(s.finished) fetched, \(s.skipped) already there, \(s.failed) failed, \(summary.deleted.count) deleted")
            case .json: break
            }
        }
    }

    private func track(_ s: inout State, _ path: String, _ event: DownloadEvent) {
        switch event {
        case let .listed(files, bytes): s.files += files; s.bytes += bytes
        case let .progress(p): s.onDisk[path] = p.completed; s.rates[path] = p.rate; s.current = path
        case let .resumed(from): s.onDisk[path] = from
        case let .done(r): s.finished += 1; s.doneBytes += r.length; s.onDisk[path] = nil; s.rates[path] = nil
        case .skipped: s.skipped += 1; s.onDisk[path] = nil
        case .failed: s.failed += 1; s.onDisk[path] = nil; s.rates[path] = nil
        case .started, .restarted, .retried, .deleted: break
        }
    }

    /// The JSON object and the plain line (nil: none) for an event.
    static func describe(_ path: String, _ event: DownloadEvent) -> ([String: Any], String?)? {
        switch event {
        case let .listed(files, bytes):
            return (["event": "listed", "source": path, "files": files, "bytes": bytes], "\(path): \(files) files, \(ByteCount.format(bytes))")
        case let .started(length):
            return (["event": "started", "file": path, "bytes": length ?? -1], nil)
        case let .resumed(from):
            return (["event": "resumed", "file": path, "from": from], "\(path): resuming from byte \(from)")
        case let .restarted(reason):
            return (["event": "restarted", "file": path, "reason": reason], "\(path): \(reason)")
        case let .progress(p):
            return (["event": "progress", "file": path, "bytes": p.completed, "total": p.total ?? -1, "rate": Int64(p.rate)], nil)
        case let .retried(attempt, delay, reason):
            return (["event": "retried", "file": path, "attempt": attempt, "delay": (delay * 1000).rounded() / 1000, "reason": reason],
                    "\(path): retrying (attempt \(attempt)): \(reason)")
        case let .skipped(reason):
            return (["event": "skipped", "file": path, "reason": reason], nil)
        case let .done(r):
            var object: [String: Any] = ["event": "done", "file": path, "bytes": r.length, "fetched": r.fetched, "resumedFrom": r.resumedFrom]
            if let verified = r.verified { object["verified"] = verified }
            return (object, "\(path): done, \(ByteCount.format(r.length))\(r.verified.map { ", \($0) verified" } ?? "")")
        case let .failed(error):
            return (["event": "failed", "file": path, "error": error.description], nil)
        case .deleted:
            return (["event": "deleted", "file": path], "\(path): deleted (no longer on the remote)")
        }
    }

    private func emit(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        context.output.line(String(decoding: data, as: UTF8.self))
    }

    private func draw(_ s: State, final: Bool) {
        let done = s.doneBytes + s.onDisk.values.reduce(0, +)
        let rate = s.rates.values.reduce(0, +)
        let label = "\(s.finished + s.skipped)/\(s.files) files" + (s.failed > 0 ? ", \(s.failed) failed" : "")
        var line = TransferReporter.line(label, done, s.bytes, final ? nil : rate, status: "")
        if !final, !s.current.isEmpty, s.onDisk[s.current] != nil { line += "  " + TerminalText.safe(s.current) }
        context.output.write("\r\u{1B}[2K" + line + (final ? "\n" : ""))
    }
}

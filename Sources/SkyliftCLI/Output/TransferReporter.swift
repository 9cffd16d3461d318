import Foundation
import SkyliftCore
import Synchronization
import SkyliftUploads

/// Turns upload events into output: live progress lines on a terminal, plain lines in a pipe, or one JSON
/// object per event (`--json`), progress at most four times a second per file.
final class TransferReporter: Sendable {
    enum Mode { case live, plain, json }

    private struct FileState {
        var label: String
        var completed: Int64 = 0
        var total: Int64?
        var rate: Double = 0
        var status = "waiting"
        var lastProgress: Double = 0
    }

    private struct State {
        var files: [FileState]
        var drawnLines = 0
        var lastDraw: Double = 0
    }

    /// The live line's status while a file waits for a server out of space.
    private static let waiting = "waiting for space"

    private let state: Mutex<State>
    private let mode: Mode
    private let context: CommandContext

    init(labels: [String], mode: Mode, context: CommandContext) {
        state = Mutex(State(files: labels.map { FileState(label: $0) }))
        self.mode = mode
        self.context = context
    }

    func report(_ index: Int, _ event: UploadEvent) {
        let now = Date().timeIntervalSince1970
        state.withLock { s in
            guard s.files.indices.contains(index) else { return }
            let label = s.files[index].label
            switch event {
            case let .started(_, destination, length, protocolName):
                s.files[index].total = length
                s.files[index].status = "sending"
                emit(["event": "started", "file": label, "destination": Redaction.url(destination), "bytes": length, "protocol": protocolName],
                     plain: "\(label): uploading \(ByteCount.format(length)) to \(Redaction.url(destination)) (\(protocolName))")
            case let .resumed(offset):
                s.files[index].completed = offset
                emit(["event": "resumed", "file": label, "from": offset], plain: "\(label): resuming from byte \(offset)")
            case let .restarted(reason):
                emit(["event": "restarted", "file": label, "reason": reason], plain: "\(label): \(reason)")
            case let .progress(p):
                // Going back (bytes the server refused) is always told, however soon after the last event.
                let back = p.completed < s.files[index].completed
                if s.files[index].status.hasPrefix(Self.waiting), p.completed > s.files[index].completed { s.files[index].status = "sending" }
                s.files[index].completed = p.completed
                s.files[index].rate = p.rate
                if mode == .json, back || now - s.files[index].lastProgress >= 0.25 {
                    s.files[index].lastProgress = now
                    emit(["event": "progress", "file": label, "bytes": p.completed, "total": p.total ?? -1, "rate": Int64(p.rate)], plain: nil)
                }
            case let .retried(attempt, delay, reason):
                emit(["event": "retried", "file": label, "attempt": attempt, "delay": (delay * 1000).rounded() / 1000, "reason": reason],
                     plain: "\(label): retrying (attempt \(attempt)): \(reason)")
            case let .waitingForSpace(kept, total, delay, waited):
                s.files[index].completed = kept
                s.files[index].status = "\(Self.waiting), next try in \(UploadError.duration(delay))"
                emit(["event": "waiting", "file": label, "reason": "server out of space", "kept": kept, "total": total,
                      "delay": (delay * 1000).rounded() / 1000, "waited": (waited * 1000).rounded() / 1000],
                     plain: "\(label): server out of space: \(ByteCount.format(kept)) of \(ByteCount.format(total)) kept on the server; "
                         + "trying again in \(UploadError.duration(delay)) (--wait-for-space)")
            case let .skipped(reason):
                s.files[index].status = "skipped"
                emit(["event": "skipped", "file": label, "reason": reason], plain: "\(label): skipped: \(reason)")
            case let .done(r):
                s.files[index].completed = r.length
                s.files[index].status = "done"
                var object: [String: Any] = ["event": "done", "file": label, "destination": Redaction.url(r.destination), "bytes": r.length,
                                             "sent": r.bytesSent, "resumedFrom": r.resumedFrom, "verified": r.verified]
                if let etag = r.etag { object["etag"] = etag }
                emit(object, plain: "\(label): done, \(ByteCount.format(r.length))\(r.verified ? ", SHA-256 verified" : "")")
            case let .failed(e):
                s.files[index].status = "failed"
                emit(["event": "failed", "file": label, "error": e.description], plain: nil)
            }
            if mode == .live, now - s.lastDraw >= 0.25 || isFinal(event) {
                s.lastDraw = now
                draw(&s)
            }
        }
    }

    /// Draws the final state of the live display.
    func finish() {
        guard mode == .live else { return }
        state.withLock { draw(&$0) }
    }

    private func isFinal(_ event: UploadEvent) -> Bool {
        switch event {
        case .done, .failed, .skipped, .started: true
        default: false
        }
    }

    private func emit(_ object: [String: Any], plain: String?) {
        switch mode {
        case .json:
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
                context.output.line(String(decoding: data, as: UTF8.self))
            }
        case .plain:
            if let plain { context.output.line(plain) }
        case .live:
            break
        }
    }

    /// Rewrites the block of lines: one per file, then a total.
    private func draw(_ s: inout State) {
        var text = s.drawnLines > 0 ? "\u{1B}[\(s.drawnLines)A" : ""
        var done: Int64 = 0, total: Int64 = 0, rate = 0.0
        for f in s.files {
            done += f.completed
            total += f.total ?? 0
            if f.status == "sending" { rate += f.rate }
            text += "\u{1B}[2K" + Self.line(f.label, f.completed, f.total, f.status == "sending" ? f.rate : nil, status: f.status) + "\n"
        }
        text += "\u{1B}[2K" + Self.line("total (\(s.files.count) file\(s.files.count == 1 ? "" : "s"))", done, total, rate, status: "") + "\n"
        s.drawnLines = s.files.count + 1
        context.output.write(text)
    }

    static func line(_ label: String, _ completed: Int64, _ total: Int64?, _ rate: Double?, status: String) -> String {
        var parts = [TerminalText.safe(label), ByteCount.format(completed) + (total.map { " / " + ByteCount.format($0) } ?? "")]
        if let total, total > 0 { parts.append("\(Int(Double(completed) * 100 / Double(total)))%") }
        if let rate, rate > 0 {
            parts.append(ByteCount.format(Int64(rate)) + "/s")
            if let total, total > completed {
                let eta = Int(Double(total - completed) / rate)
                parts.append(String(format: "ETA %d:%02d", eta / 60, eta % 60))
            }
        }
        if !status.isEmpty && status != "sending" { parts.append(status) }
        return parts.joined(separator: "  ")
    }
}

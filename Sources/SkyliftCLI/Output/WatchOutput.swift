import SkyliftAutoUpload
import Foundation
import SkyliftCore

/// How `skylift watch` reports: readable lines, or one JSON object per line with `--json`. Every JSON
/// line has `event` and `t` (seconds since 1970), so scripts can time reports.
struct WatchOutput: Sendable {
    let context: CommandContext
    let json: Bool

    /// `open` is the web app's one-time sign-in link.
    func embedded(store: URL, url: URL, token: String, open: String) {
        if json {
            emit(["event": "embedded", "store": store.path, "url": url.absoluteString, "token": token, "open": open])
        } else {
            context.output.line("skylift: embedded cloud serving \(store.path)")
            context.output.line("  url:   \(url.absoluteString)")
            context.output.line("  token: \(token)")
            context.output.line("  open:  \(open)")
        }
    }

    func started(dir: String, destination: String, state: String) {
        if json {
            emit(["event": "watching", "dir": dir, "to": destination, "state": state])
        } else {
            context.output.line("skylift: watching \(dir) → \(destination) (state in \(state))")
        }
    }

    func note(_ text: String) {
        if json { emit(["event": "notice", "message": text]) } else { context.errors.line("skylift watch: \(text)") }
    }

    func show(_ event: AgentEvent) {
        if json {
            emit(Self.fields(event))
            return
        }
        switch event {
        case let .scanned(reason, files, changed, gone, resumed, _):
            var parts = ["\(files) files", "\(changed) new or changed"]
            if gone > 0 { parts.append("\(gone) gone") }
            if resumed > 0 { parts.append("\(resumed) interrupted uploads to resume") }
            context.output.line("scan (\(reason.rawValue)): " + parts.joined(separator: ", "))
        case let .uploaded(path, size, skipped):
            context.output.line((skipped ? "already there " : "uploaded ") + "\(path) (\(ByteCount.format(size)))")
        case let .resumed(path, from):
            context.output.line("resuming \(path) from byte \(from)")
        case let .failed(path, reason, retry):
            context.errors.line("failed \(path): \(reason) (retry in \(Int(retry.rounded(.up))) s)")
        case let .waitingForSpace(path, kept, size, retry):
            context.errors.line("waiting for space \(path): server out of space, \(Self.kept(kept, size)) kept on the server "
                + "(retry in \(Int(retry.rounded(.up))) s)")
        case let .moved(from, to, remoteMoved):
            context.output.line("moved \(from) → \(to)" + (remoteMoved ? " (remote copy moved)" : " (remote copy kept)"))
        case let .removed(path, remoteDeleted):
            context.output.line("removed \(path)" + (remoteDeleted ? " (remote copy deleted)" : ""))
        case let .notice(text):
            context.errors.line("skylift watch: \(text)")
        case .stopped:
            context.output.line("skylift: stopped; unfinished uploads resume on the next start")
        case .settled, .uploading, .progress, .dropped:
            break  // only in --json: too chatty for a terminal
        }
    }

    static func fields(_ event: AgentEvent) -> [String: Any] {
        switch event {
        case let .scanned(reason, files, changed, gone, resumed, seconds):
            return ["event": "scanned", "reason": reason.rawValue, "files": files, "changed": changed, "gone": gone,
                    "resumed": resumed, "scan_seconds": seconds]
        case let .settled(s, overdue):
            return ["event": overdue ? "overdue" : "settled", "path": s.path, "size": s.size]
        case let .uploading(path, size, attempt):
            return ["event": "uploading", "path": path, "size": size, "attempt": attempt]
        case let .resumed(path, from):
            return ["event": "resumed", "path": path, "from": from]
        case let .progress(path, sent, size):
            return ["event": "progress", "path": path, "sent": sent, "size": size]
        case let .uploaded(path, size, skipped):
            return ["event": "uploaded", "path": path, "size": size, "skipped": skipped]
        case let .failed(path, reason, retry):
            return ["event": "failed", "path": path, "reason": reason, "retry_in": retry]
        case let .waitingForSpace(path, kept, size, retry):
            return ["event": "waiting_for_space", "path": path, "kept": kept ?? -1, "size": size, "retry_in": retry]
        case let .dropped(path):
            return ["event": "dropped", "path": path]
        case let .moved(from, to, remoteMoved):
            return ["event": "moved", "from": from, "to": to, "remote_moved": remoteMoved]
        case let .removed(path, remoteDeleted):
            return ["event": "removed", "path": path, "remote_deleted": remoteDeleted]
        case let .notice(text):
            return ["event": "notice", "message": text]
        case .stopped:
            return ["event": "stopped"]
        }
    }

    /// `3.0 MiB of 8.0 MiB`; the part of an unknown amount.
    static func kept(_ kept: Int64?, _ size: Int64) -> String {
        "\(kept.map { ByteCount.format($0) } ?? "an unknown part") of \(ByteCount.format(size))"
    }

    private func emit(_ fields: [String: Any]) {
        var object = fields
        object["t"] = Date().timeIntervalSince1970
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        context.output.line(String(decoding: data, as: UTF8.self))
    }
}

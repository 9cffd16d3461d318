import SkyliftFolderWatch

/// What the watch agent reports, for the console or `--json`.
public enum AgentEvent: Sendable, Equatable {
    /// The start-up (or overflow / fallback) listing was reconciled with the queue.
    case scanned(reason: FolderScan.Reason, files: Int, changed: Int, gone: Int, resumed: Int, seconds: Double)
    /// A file stopped changing (`overdue`: it hit `--max-wait` while still changing).
    case settled(FileSnapshot, overdue: Bool)
    case uploading(path: String, size: Int64, attempt: Int)
    case resumed(path: String, from: Int64)
    case progress(path: String, sent: Int64, size: Int64)
    case uploaded(path: String, size: Int64, skipped: Bool)
    case failed(path: String, reason: String, retryInSeconds: Double)
    /// The server is out of space: the file is paused (`waiting` in the queue) and tried again, from what the
    /// server `kept`, after `retryInSeconds`.
    case waitingForSpace(path: String, kept: Int64?, size: Int64, retryInSeconds: Double)
    /// The file vanished between its report and its upload; it left the queue.
    case dropped(path: String)
    /// A file or folder moved inside the tree; `remoteMoved` when its remote copy was moved along (it keeps
    /// its old name when the destination cannot move, or nothing of it was uploaded yet).
    case moved(from: String, to: String, remoteMoved: Bool)
    /// A file or folder left the watched tree; `remoteDeleted` when `--mirror-deletes` removed its copy.
    case removed(path: String, remoteDeleted: Bool)
    case notice(String)
    /// The agent stopped taking work; uploads in flight were paused where they can resume.
    case stopped
}

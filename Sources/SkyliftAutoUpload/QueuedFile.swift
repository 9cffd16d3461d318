import SkyliftFolderWatch

/// Where a file is in its life: waiting, being sent, paused until the server has space again (`waiting`: it
/// answered 507 and keeps what it had; tried again at `retryAt`, minutes later and growing), sent, or failed (to
/// be retried later).
///
/// The raw value is the state's one spelling, in the queue's `state` column as everywhere else; statements
/// name states through `sql` and `sql(_:)`, never as literals of their own.
public enum UploadState: String, Sendable, CaseIterable, Codable {
    case pending, uploading, waiting, done, failed

    /// The state as an SQL literal (`'done'`), for statements: a constant of the code, never user input.
    var sql: String { "'\(rawValue)'" }

    /// States as an SQL list (`('failed','waiting')`), for `IN` and the table's CHECK.
    static func sql(_ states: [UploadState]) -> String { "(" + states.map(\.sql).joined(separator: ",") + ")" }
    static func sql(_ states: UploadState...) -> String { sql(states) }
}

/// One row of the durable queue.
public struct QueuedFile: Sendable, Equatable {
    /// Path relative to the watched folder.
    public var path: String
    /// Name of its copy in the destination (differs from `path` after a move: the copy stays put).
    public var remotePath: String
    public var size: Int64
    public var mtimeNanoseconds: Int64
    public var inode: UInt64
    /// Hex SHA-256 of the content, when it was computed.
    public var digest: String?
    public var state: UploadState
    /// The resumable upload's URL while `uploading` (kept across restarts to resume from the server's offset).
    public var uploadURL: String?
    /// Bytes the server holds of the current upload, as last reported.
    public var sent: Int64
    public var attempts: Int
    /// Why the last attempt failed.
    public var reason: String?
    /// Seconds since 1970 when a failed file is tried again.
    public var retryAt: Double?
    /// Seconds since 1970 of the last change to this row.
    public var updated: Double

    /// The (size, mtime, inode) the row describes.
    public var snapshot: FileSnapshot {
        FileSnapshot(path: path, size: size, mtimeNanoseconds: mtimeNanoseconds, inode: inode)
    }
}

/// What `skylift status` shows.
public struct QueueStatus: Sendable, Equatable {
    /// The watched folder this state belongs to.
    public var root: String
    public var counts: [UploadState: Int]
    /// Files being sent now, with progress.
    public var inFlight: [QueuedFile]
    /// The most recent failures, newest first.
    public var lastErrors: [QueuedFile]
    /// Files paused until the server has space again, the next try first (`sent`: what the server keeps).
    public var waiting: [QueuedFile] = []
}

import Foundation
import SkyliftCore

// Files paused because the server is out of space (HTTP 507): the row waits with a growing retry time instead of
// being sent again every few seconds, and keeps its upload URL so it continues from what the server kept.
extension UploadQueue {
    /// The states a row may have, as the table's CHECK lists them.
    static let states = "(" + UploadState.allCases.map { "'\($0.rawValue)'" }.joined(separator: ",") + ")"

    /// Pauses `path` until `policy`'s next wait for space is over (1 minute, doubling per wait in a row, capped),
    /// recording why and what the server `kept`. Returns the wait in seconds.
    public func markWaiting(_ path: String, reason: String, kept: Int64?, policy: RetryPolicy) async throws(AutoUploadError) -> Double {
        try await writing { c in
            let waits = (try c.query("SELECT space_waits FROM files WHERE path = ?", [.text(path)]).first?.int(0) ?? 0) + 1
            let delay = policy.spaceDelay(beforeWait: Int(waits))
            try c.execute("""
                UPDATE files SET state = 'waiting', reason = ?, retry_at = ?, space_waits = ?, sent = COALESCE(?, sent), updated = ?
                WHERE path = ? AND state = 'uploading'
                """, [.text(reason), .real(Self.now() + delay), .integer(waits), kept.map(SQLiteValue.integer) ?? .null,
                      .real(Self.now()), .text(path)])
            return delay
        }
    }

    /// Brings a queue made before the `waiting` state up to date: the waits-in-a-row column, and the state CHECK
    /// (SQLite cannot alter a CHECK, so the table is rebuilt from its own definition with the new list, rows
    /// copied in column order, in the caller's transaction).
    static func allowWaiting(_ c: SQLiteConnection) throws {
        let columns = Set(try c.query("PRAGMA table_info(files)").compactMap { $0.text(1) })
        if !columns.contains("space_waits") {
            try c.execute("ALTER TABLE files ADD COLUMN space_waits INTEGER NOT NULL DEFAULT 0")
        }
        let old = "('pending','uploading','done','failed')"
        guard let sql = try c.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'files'").first?.text(0),
              sql.contains(old) else { return }
        let rebuilt = sql.replacingOccurrences(of: old, with: states)
            .replacingOccurrences(of: "CREATE TABLE files", with: "CREATE TABLE files_rebuilt")
        try c.execute(rebuilt)
        try c.execute("INSERT INTO files_rebuilt SELECT * FROM files")
        try c.execute("DROP TABLE files")
        try c.execute("ALTER TABLE files_rebuilt RENAME TO files")
        try c.execute("CREATE INDEX IF NOT EXISTS files_by_state ON files(state, retry_at)")
    }
}

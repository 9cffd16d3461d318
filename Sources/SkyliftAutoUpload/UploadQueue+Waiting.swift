import Foundation
import SkyliftCore

// Files paused because the server is out of space (HTTP 507): the row waits with a growing retry time instead of
// being sent again every few seconds, and keeps its upload URL so it continues from what the server kept.
extension UploadQueue {
    /// Pauses `path` until `policy`'s next wait for space is over (1 minute, doubling per wait in a row, capped),
    /// recording why and what the server `kept`. Returns the wait in seconds.
    public func markWaiting(_ path: String, reason: String, kept: Int64?, policy: RetryPolicy) async throws(AutoUploadError) -> Double {
        try await writing { c in
            let waits = (try c.query("SELECT space_waits FROM files WHERE path = ?", [.text(path)]).first?.int("space_waits") ?? 0) + 1
            let delay = policy.spaceDelay(beforeWait: Int(waits))
            try c.execute("""
                UPDATE files SET state = \(UploadState.waiting.sql), reason = ?, retry_at = ?, space_waits = ?, sent = COALESCE(?, sent), updated = ?
                WHERE path = ? AND state = \(UploadState.uploading.sql)
                """, [.text(reason), .real(Self.now() + delay), .integer(waits), kept.map(SQLiteValue.integer) ?? .null,
                      .real(Self.now()), .text(path)])
            return delay
        }
    }
}

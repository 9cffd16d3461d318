import SkyliftFolderWatch
import Foundation
import SkyliftUploads

/// The engine's resume record for one watched file, kept in the file's own queue row: the upload URL or S3
/// UploadId in `upload_url`, the source identity it belongs to, the destination it was made for, and after
/// completion the ETag (so a crash between the server's confirmation and the row's `done` skips the file
/// instead of sending it again). Nothing is kept anywhere else, and nothing is copied between stores.
///
/// The row is found by the content it describes (size, mtime, inode; its own path first), so a file moved while
/// it is sent still finds its record under the new path. Saves are synchronous SQLite commits in WAL mode,
/// so a record the engine saved survives a killed process.
public struct QueueResumeStore: ResumeStore {
    let queue: UploadQueue
    let snapshot: FileSnapshot

    public init(queue: UploadQueue, snapshot: FileSnapshot) {
        self.queue = queue
        self.snapshot = snapshot
    }

    /// The row being uploaded for this content, its own path first.
    static let row = """
        (SELECT rowid FROM files WHERE state = \(UploadState.uploading.sql) AND size = ? AND mtime = ? AND inode = ? ORDER BY path = ? DESC LIMIT 1)
        """

    private var key: [SQLiteValue] {
        [.integer(snapshot.size), .integer(snapshot.mtimeNanoseconds), .integer(Int64(bitPattern: snapshot.inode)), .text(snapshot.path)]
    }

    public func load(source: String, destination: String) async -> ResumeRecord? {
        let key = self.key
        let row = try? await queue.reading { c in
            try c.query("""
                SELECT upload_url, resume_identity, resume_destination, sent, size, resume_done, resume_etag
                FROM files WHERE rowid = \(Self.row)
                """, key).first
        }
        guard let row, let identity = row.text("resume_identity"), row.text("resume_destination") == destination else { return nil }
        return ResumeRecord(source: source, identity: identity, destination: destination, protocolName: "",
                            token: row.text("upload_url"), length: row.int("size") ?? 0, confirmedOffset: row.int("sent") ?? 0,
                            completed: row.int("resume_done") == 1, etag: row.text("resume_etag"))
    }

    public func save(_ record: ResumeRecord) async throws {
        let values: [SQLiteValue] = [record.token.map(SQLiteValue.text) ?? .null, .text(record.identity), .text(record.destination),
                                     .integer(record.confirmedOffset), .integer(record.completed ? 1 : 0),
                                     record.etag.map(SQLiteValue.text) ?? .null, .real(UploadQueue.now())]
        do {
            try await queue.writing { c in
                try c.execute("""
                    UPDATE files SET upload_url = ?, resume_identity = ?, resume_destination = ?, sent = ?, resume_done = ?,
                    resume_etag = ?, updated = ? WHERE rowid = \(Self.row)
                    """, values + key)
            }
        } catch {
            throw UploadError.stateNotWritable(path: queue.root, reason: error.description)
        }
    }

    public func remove(source: String, destination: String) async {
        let key = self.key
        _ = try? await queue.writing { c in
            try c.execute("""
                UPDATE files SET upload_url = NULL, resume_identity = NULL, resume_destination = NULL, resume_done = 0,
                resume_etag = NULL WHERE rowid = \(Self.row)
                """, key)
        }
    }
}

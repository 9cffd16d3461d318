import SkyliftFolderWatch
import Foundation
import SkyliftCore
import SkyliftSystem

/// The durable queue: one SQLite database (WAL) under the state folder, one row per known file.
///
/// A row is written when a file settles (`pending`), before its upload starts (`uploading`; the engine keeps
/// its resume record, upload URL first, in the row through ``QueueResumeStore``), and when the server
/// confirmed it (`done`, with the snapshot that was sent).
/// After a crash, `uploading` rows go back to `pending` with their upload URL kept, so the engine reattaches
/// and continues from the server's offset.
public final class UploadQueue: Sendable {
    /// The database file inside the state folder.
    public static let fileName = "watch.sqlite"
    let db: SQLiteDatabase
    /// The watched folder this state belongs to (absolute path).
    public let root: String

    static let columns = "path, remote_path, size, mtime, inode, digest, state, upload_url, sent, attempts, reason, retry_at, updated"

    /// Opens or creates the queue in `stateDirectory` for the folder `root`.
    /// Throws `AutoUploadError.stateBelongsToOtherFolder` when the state was made for another folder.
    public init(stateDirectory: URL, root: String) throws(AutoUploadError) {
        let path = stateDirectory.appendingPathComponent(Self.fileName).path
        do {
            // Folders 0700, database 0600 before SQLite opens it: SQLite gives its -wal and -shm files the
            // database's mode, and the queue lists every file name and upload URL.
            try PrivateFiles.createDirectory(stateDirectory.path)
            try PrivateFiles.createEmpty(path)
        } catch {
            throw .stateNotUsable(path: stateDirectory.path, reason: "cannot create it: \(error)")
        }
        self.root = root
        do {
            var existing: String?
            db = try SQLiteDatabase(path: path) { c in
                try QueueSchema.migrate(c, path: path)
                let rows = try c.query("SELECT value FROM meta WHERE key = 'root'")
                if rows.isEmpty { try c.execute("INSERT INTO meta(key, value) VALUES ('root', ?)", [.text(root)]) }
                existing = rows.first?.text("value")
            }
            if let existing, existing != root {
                throw AutoUploadError.stateBelongsToOtherFolder(state: stateDirectory.path, existing: existing, given: root)
            }
        } catch let error as AutoUploadError {
            throw error
        } catch let error as SQLiteError {
            throw .database(error)
        } catch {
            throw .stateNotUsable(path: path, reason: "\(error)")
        }
    }

    /// Opens an existing queue read-only (for `skylift status`), whatever folder it belongs to. The file is
    /// opened on SQLite's opening executor and read on the connection's own: no thread of the caller's waits.
    public init(readingStateIn stateDirectory: URL) async throws(AutoUploadError) {
        let path = stateDirectory.appendingPathComponent(Self.fileName).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw .stateNotUsable(path: stateDirectory.path, reason: "no watch state here (run `skylift watch` first)")
        }
        do {
            db = try await SQLiteDatabase.open(path: path, readOnly: true)
            root = try await db.read { c in try c.query("SELECT value FROM meta WHERE key = 'root'").first?.text("value") } ?? ""
        } catch let error as SQLiteError {
            throw .database(error)
        } catch {
            throw .stateNotUsable(path: path, reason: "\(error)")
        }
    }

    /// Wall-clock seconds since 1970, the unit of `retryAt` and `updated`.
    public static func now() -> Double { Date().timeIntervalSince1970 }

    // MARK: - Reading

    /// The row for `path`, if any.
    public func file(_ path: String) async throws(AutoUploadError) -> QueuedFile? {
        try await reading { c in try c.query("SELECT \(Self.columns) FROM files WHERE path = ?", [.text(path)]).first.map(Self.decode) }
    }

    /// Every row, in path order.
    public func allFiles() async throws(AutoUploadError) -> [QueuedFile] {
        try await reading { c in try c.query("SELECT \(Self.columns) FROM files ORDER BY path").map(Self.decode) }
    }

    /// Counts per state, files in flight, and the latest failures.
    public func status(errorLimit: Int = 10) async throws(AutoUploadError) -> QueueStatus {
        try await reading { c in
            var counts = Dictionary(uniqueKeysWithValues: UploadState.allCases.map { ($0, 0) })
            for row in try c.query("SELECT state, COUNT(*) AS count FROM files GROUP BY state") {
                if let name = row.text("state"), let state = UploadState(rawValue: name) { counts[state] = Int(row.int("count") ?? 0) }
            }
            let inFlight = try c.query("SELECT \(Self.columns) FROM files WHERE state = \(UploadState.uploading.sql) ORDER BY path").map(Self.decode)
            let errors = try c.query("SELECT \(Self.columns) FROM files WHERE state = \(UploadState.failed.sql) ORDER BY updated DESC LIMIT ?",
                                     [.integer(Int64(errorLimit))]).map(Self.decode)
            let waiting = try c.query("SELECT \(Self.columns) FROM files WHERE state = \(UploadState.waiting.sql) ORDER BY retry_at LIMIT ?",
                                      [.integer(Int64(errorLimit))]).map(Self.decode)
            return QueueStatus(root: self.root, counts: counts, inFlight: inFlight, lastErrors: errors, waiting: waiting)
        }
    }

    /// When the earliest failed or waiting file may be retried, if any.
    public func nextRetry() async throws(AutoUploadError) -> Double? {
        try await reading { c in try c.query("SELECT MIN(retry_at) AS next FROM files WHERE state IN \(UploadState.sql(.failed, .waiting))").first?.double("next") }
    }

    // MARK: - Changes

    /// Records a settled file. A file already uploaded in this exact state is left alone; otherwise it
    /// becomes `pending` (an upload in progress for an older state keeps its URL only if nothing changed).
    /// Returns whether the file now waits for upload.
    @discardableResult
    public func enqueue(_ snapshot: FileSnapshot) async throws(AutoUploadError) -> Bool {
        try await writing { c in try Self.enqueue(snapshot, c) }
    }

    static func enqueue(_ s: FileSnapshot, _ c: SQLiteConnection) throws -> Bool {
        let now = Self.now()
        // A moved file whose remote copy still has this name would be overwritten by this upload: it gets
        // uploaded under its own name instead.
        try c.execute("""
            UPDATE files SET state = \(UploadState.pending.sql), remote_path = path, upload_url = NULL, sent = 0, updated = ?
            WHERE remote_path = ? AND path != ?
            """, [.real(now), .text(s.path), .text(s.path)])
        if let row = try c.query("SELECT \(columns) FROM files WHERE path = ?", [.text(s.path)]).first.map(decode) {
            if row.snapshot.agrees(with: s) {
                if row.state == .failed {
                    // A file that failed and settled again unchanged is worth trying again now.
                    try c.execute("UPDATE files SET state = \(UploadState.pending.sql), retry_at = NULL, updated = ? WHERE path = ?",
                                  [.real(now), .text(s.path)])
                }
                return row.state != .done
            }
            // New content: upload again, replacing the remote copy at the file's own name.
            try c.execute("""
                UPDATE files SET size = ?, mtime = ?, inode = ?, digest = NULL, state = \(UploadState.pending.sql), upload_url = NULL,
                sent = 0, attempts = 0, reason = NULL, retry_at = NULL, space_waits = 0, remote_path = path, updated = ? WHERE path = ?
                """, [.integer(s.size), .integer(s.mtimeNanoseconds), .integer(Int64(bitPattern: s.inode)), .real(now), .text(s.path)])
            return true
        }
        try c.execute("""
            INSERT INTO files(path, remote_path, size, mtime, inode, state, updated) VALUES (?, ?, ?, ?, ?, \(UploadState.pending.sql), ?)
            """, [.text(s.path), .text(s.path), .integer(s.size), .integer(s.mtimeNanoseconds),
                  .integer(Int64(bitPattern: s.inode)), .real(now)])
        return true
    }

    /// Takes the next file to upload (pending, or failed or waiting for space and due), marking it `uploading`.
    public func claimNext(now: Double = UploadQueue.now()) async throws(AutoUploadError) -> QueuedFile? {
        try await writing { c in
            let rows = try c.query("""
                SELECT \(Self.columns) FROM files
                WHERE state = \(UploadState.pending.sql) OR (state IN \(UploadState.sql(.failed, .waiting)) AND retry_at <= ?)
                ORDER BY state != \(UploadState.pending.sql), updated LIMIT 1
                """, [.real(now)])
            guard var row = rows.first.map(Self.decode) else { return nil }
            try c.execute("UPDATE files SET state = \(UploadState.uploading.sql), attempts = attempts + 1, updated = ? WHERE path = ?",
                          [.real(now), .text(row.path)])
            row.state = .uploading
            row.attempts += 1
            return row
        }
    }

    /// Records the resumable upload's URL or progress, without waiting: the write is queued behind every
    /// earlier access, so a later `markDone` or read sees it. Informational (the engine saves its resume
    /// record in the row through ``QueueResumeStore``), so a failure to record it is dropped.
    public func recordProgress(_ path: String, uploadURL: String?, sent: Int64) {
        db.writeLater { c in
            try c.execute("""
                UPDATE files SET upload_url = COALESCE(?, upload_url), sent = ?, updated = ? WHERE path = ? AND state = \(UploadState.uploading.sql)
                """, [uploadURL.map(SQLiteValue.text) ?? .null, .integer(sent), .real(Self.now()), .text(path)])
        }
    }

    /// Updates a claimed row to the file's current state (it changed after it was queued, e.g. a file sent
    /// at `--max-wait` while still growing), so `markDone` records what is actually sent.
    public func refresh(_ snapshot: FileSnapshot) async throws(AutoUploadError) {
        try await writing { c in
            try c.execute("""
                UPDATE files SET size = ?, mtime = ?, inode = ?, digest = NULL, updated = ? WHERE path = ? AND state = \(UploadState.uploading.sql)
                """, [.integer(snapshot.size), .integer(snapshot.mtimeNanoseconds), .integer(Int64(bitPattern: snapshot.inode)),
                      .real(Self.now()), .text(snapshot.path)])
        }
    }

    /// Marks `file` uploaded in the state it was claimed with. If the row changed meanwhile (the file was
    /// modified and settled again), it stays pending for the new content. Returns false when no row matched
    /// (changed, or moved to another path).
    @discardableResult
    public func markDone(_ file: QueuedFile, digest: String? = nil) async throws(AutoUploadError) -> Bool {
        try await writing { c in
            try c.execute("""
                UPDATE files SET state = \(UploadState.done.sql), upload_url = NULL, sent = size, reason = NULL, retry_at = NULL, space_waits = 0,
                digest = COALESCE(?, digest), updated = ?
                WHERE path = ? AND state = \(UploadState.uploading.sql) AND size = ? AND mtime = ? AND inode = ?
                """, [digest.map(SQLiteValue.text) ?? .null, .real(Self.now()), .text(file.path), .integer(file.size),
                      .integer(file.mtimeNanoseconds), .integer(Int64(bitPattern: file.inode))])
            return c.changes > 0
        }
    }

    /// The row being uploaded for exactly this content (size, mtime, inode), under whatever path it has now:
    /// a file moved while it was sent has its row under the new path.
    public func uploading(_ snapshot: FileSnapshot) async throws(AutoUploadError) -> QueuedFile? {
        try await reading { c in
            try c.query("SELECT \(Self.columns) FROM files WHERE state = \(UploadState.uploading.sql) AND size = ? AND mtime = ? AND inode = ? LIMIT 1",
                        [.integer(snapshot.size), .integer(snapshot.mtimeNanoseconds), .integer(Int64(bitPattern: snapshot.inode))])
                .first.map(Self.decode)
        }
    }

    /// Marks a failed attempt, to be retried at `retryAt`.
    public func markFailed(_ path: String, reason: String, retryAt: Double) async throws(AutoUploadError) {
        try await writing { c in
            try c.execute("""
                UPDATE files SET state = \(UploadState.failed.sql), reason = ?, retry_at = ?, updated = ? WHERE path = ? AND state = \(UploadState.uploading.sql)
                """, [.text(reason), .real(retryAt), .real(Self.now()), .text(path)])
        }
    }

    /// Puts an interrupted upload back in line, keeping its upload URL so it resumes.
    public func release(_ path: String) async throws(AutoUploadError) {
        try await writing { c in
            try c.execute("UPDATE files SET state = \(UploadState.pending.sql), updated = ? WHERE path = ? AND state = \(UploadState.uploading.sql)",
                          [.real(Self.now()), .text(path)])
        }
    }

    /// At start-up: uploads a dead process left `uploading` are pending again (URL kept). Returns how many.
    @discardableResult
    public func recoverInterrupted() async throws(AutoUploadError) -> Int {
        try await writing { c in
            try c.execute("UPDATE files SET state = \(UploadState.pending.sql) WHERE state = \(UploadState.uploading.sql)")
            return c.changes
        }
    }

    // MARK: - Plumbing

    func reading<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws(AutoUploadError) -> T {
        do { return try await db.read(body) } catch { throw Self.wrap(error) }
    }

    func writing<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws(AutoUploadError) -> T {
        do { return try await db.write(body) } catch { throw Self.wrap(error) }
    }

    private static func wrap(_ error: any Error) -> AutoUploadError {
        if let e = error as? AutoUploadError { return e }
        if let e = error as? SQLiteError { return .database(e) }
        return .stateNotUsable(path: "", reason: "\(error)")
    }

    static func decode(_ r: SQLiteRow) -> QueuedFile {
        QueuedFile(path: r.text("path") ?? "", remotePath: r.text("remote_path") ?? "", size: r.int("size") ?? 0,
                   mtimeNanoseconds: r.int("mtime") ?? 0, inode: UInt64(bitPattern: r.int("inode") ?? 0), digest: r.text("digest"),
                   state: r.text("state").flatMap(UploadState.init(rawValue:)) ?? .pending, uploadURL: r.text("upload_url"),
                   sent: r.int("sent") ?? 0, attempts: Int(r.int("attempts") ?? 0), reason: r.text("reason"),
                   retryAt: r.double("retry_at"), updated: r.double("updated") ?? 0)
    }
}

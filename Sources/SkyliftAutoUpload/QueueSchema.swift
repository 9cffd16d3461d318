import Foundation

/// The queue's tables and how they got to their shape: one migration per schema version, the version kept
/// in SQLite's `PRAGMA user_version`. A queue at version N has had migrations 1...N; opening runs the rest
/// inside the opening transaction and records the new version with them, so a crash leaves the old
/// version or the new one, never a half-migrated queue that claims either.
///
/// Queues made before the version was kept say 0 whatever shape they have (any of versions 1 to 3's), so
/// migrations 1 to 3 look at what is there before changing it. Later migrations run exactly once, by version.
enum QueueSchema {
    /// In order: entry i brings a queue from version i to version i + 1.
    static let migrations: [(name: String, apply: @Sendable (SQLiteConnection) throws -> Void)] = [
        ("meta and files tables", createTables),
        ("resume record columns", addResumeColumns),
        ("waiting state and space_waits", allowWaiting),
    ]

    /// The version this build makes and reads.
    static var version: Int { migrations.count }

    /// Runs the migrations `c`'s queue has not had. Refuses a queue from a newer Skylift, whose rows this one
    /// might misread or break.
    static func migrate(_ c: SQLiteConnection, path: String) throws {
        let current = Int(try c.query("PRAGMA user_version").first?.int("user_version") ?? 0)
        guard current <= version else {
            throw AutoUploadError.stateNotUsable(
                path: path, reason: "made by a newer skylift (queue schema \(current); this one knows up to \(version))")
        }
        for migration in migrations[current...] { try migration.apply(c) }
        if current < version { try c.execute("PRAGMA user_version = \(version)") }
    }

    /// Version 1: the tables as the first queues had them (four states; the CHECK is history, kept as written).
    private static func createTables(_ c: SQLiteConnection) throws {
        try c.script("""
            CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS files(
                path TEXT PRIMARY KEY,
                remote_path TEXT NOT NULL,
                size INTEGER NOT NULL, mtime INTEGER NOT NULL, inode INTEGER NOT NULL,
                digest TEXT,
                state TEXT NOT NULL CHECK (state IN \(firstStates)),
                upload_url TEXT,
                sent INTEGER NOT NULL DEFAULT 0,
                attempts INTEGER NOT NULL DEFAULT 0,
                reason TEXT,
                retry_at REAL,
                updated REAL NOT NULL);
            CREATE INDEX IF NOT EXISTS files_by_state ON files(state, retry_at);
            """)
    }

    /// The state CHECK of versions 1 and 2.
    private static let firstStates = "('pending','uploading','done','failed')"

    /// Version 2: the engine's resume record in the row (``QueueResumeStore``).
    private static func addResumeColumns(_ c: SQLiteConnection) throws {
        let existing = try columns(c)
        for column in ["resume_identity TEXT", "resume_destination TEXT", "resume_etag TEXT", "resume_done INTEGER NOT NULL DEFAULT 0"]
        where !existing.contains(String(column.prefix { $0 != " " })) {
            try c.execute("ALTER TABLE files ADD COLUMN \(column)")
        }
    }

    /// Version 3: the `waiting` state (a 507 pauses the row) and its waits-in-a-row column. SQLite cannot
    /// alter a CHECK, so the table is rebuilt from its own definition with the new list, rows copied in
    /// column order.
    private static func allowWaiting(_ c: SQLiteConnection) throws {
        if !(try columns(c)).contains("space_waits") {
            try c.execute("ALTER TABLE files ADD COLUMN space_waits INTEGER NOT NULL DEFAULT 0")
        }
        guard let sql = try c.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'files'").first?.text("sql"),
              sql.contains(firstStates) else { return }
        let rebuilt = sql.replacingOccurrences(of: firstStates, with: UploadState.sql(UploadState.allCases))
            .replacingOccurrences(of: "CREATE TABLE files", with: "CREATE TABLE files_rebuilt")
        try c.execute(rebuilt)
        try c.execute("INSERT INTO files_rebuilt SELECT * FROM files")
        try c.execute("DROP TABLE files")
        try c.execute("ALTER TABLE files_rebuilt RENAME TO files")
        try c.execute("CREATE INDEX IF NOT EXISTS files_by_state ON files(state, retry_at)")
    }

    private static func columns(_ c: SQLiteConnection) throws -> Set<String> {
        Set(try c.query("PRAGMA table_info(files)").compactMap { $0.text("name") })
    }
}

import CSQLite
import SkyliftSystem

/// One SQLite connection in WAL mode, confined to a serial executor of its own (`skylift-sqlite`, one
/// thread): the C handle is only ever touched by that executor's thread, one access at a time (GRDB's
/// model), or by `init` before the database is shared with anyone.
///
/// Access is `read`/`write`, which suspend the calling task (no thread waits) while the executor runs the
/// closure, and `writeLater`, which queues a write without waiting. The closures are synchronous, so an
/// access cannot await another one, and there is no synchronous access at all: nothing can block a thread
/// of Swift's pool on the connection, or wait on the executor from its own thread. A schema set-up runs in
/// `init` (`setUp`), on the opening thread, before any other access can exist.
///
/// `@unchecked Sendable`: the handle and the statement cache are only used by `init` and on `executor`.
final class SQLiteDatabase: @unchecked Sendable {
    let path: String
    private let executor = BlockingExecutor(name: "skylift-sqlite", threads: 1)
    private let connection: SQLiteConnection

    /// Opening runs on a thread of this executor when done from async code (`open`).
    private static let opening = BlockingExecutor(name: "skylift-sqlopen", threads: 2)

    /// Opens (creating if asked) the database at `path`, switching it to WAL, then runs `setUp` with the
    /// connection inside one immediate transaction (none for a read-only database). Blocks the calling
    /// thread: from async code use ``open(path:readOnly:setUp:)``.
    init(path: String, readOnly: Bool = false, setUp: (SQLiteConnection) throws -> Void = { _ in }) throws {
        self.path = path
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let rc = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let error = SQLiteError(code: rc, handle: handle, context: "opening \(path)")
            sqlite3_close_v2(handle)
            throw error
        }
        connection = SQLiteConnection(handle: handle, path: path)
        sqlite3_busy_timeout(handle, 5000)
        if readOnly {
            try setUp(connection)
            return
        }
        // WAL: readers (`skylift status`) never block the agent. synchronous=NORMAL: a commit survives
        // the process dying (kill -9) because it is in the kernel's page cache; only a power cut can lose
        // the last few, which costs a re-upload under the same name or a start-up rescan, never a file.
        // FULL would fsync every settled file, minutes for a first scan of 100,000 files.
        _ = try connection.query("PRAGMA journal_mode=WAL")
        try connection.execute("PRAGMA synchronous=NORMAL")
        try transaction(setUp)
    }

    /// `init` on the `skylift-sqlopen` executor: opening reads and maybe writes the file.
    static func open(path: String, readOnly: Bool = false,
                     setUp: @escaping @Sendable (SQLiteConnection) throws -> Void = { _ in }) async throws -> SQLiteDatabase {
        try await opening.run { try SQLiteDatabase(path: path, readOnly: readOnly, setUp: setUp) }
    }

    /// Runs `body` inside one immediate transaction on the database's executor; rolls back if it throws.
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await executor.run { try self.transaction(body) }
    }

    /// Runs `body` with the connection on the database's executor, outside any explicit transaction.
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await executor.run { try body(self.connection) }
    }

    /// Queues a write without waiting for it (errors are dropped); it runs after every access queued before.
    func writeLater(_ body: @escaping @Sendable (SQLiteConnection) throws -> Void) {
        executor.execute { _ = try? self.transaction(body) }
    }

    /// Runs in `init` or on `executor` only.
    private func transaction<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let value = try body(connection)
            try connection.execute("COMMIT")
            return value
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    deinit { connection.close() }
}

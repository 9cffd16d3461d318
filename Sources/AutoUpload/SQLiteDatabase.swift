import CSQLite
import Dispatch

/// A value bound to or read from a statement.
enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// One result row, by column index.
struct SQLiteRow: Sendable {
    var values: [SQLiteValue]

    func int(_ i: Int) -> Int64? { if case let .integer(v) = values[i] { v } else { nil } }
    func double(_ i: Int) -> Double? {
        switch values[i] {
        case let .real(v): v
        case let .integer(v): Double(v)
        default: nil
        }
    }
    func text(_ i: Int) -> String? { if case let .text(v) = values[i] { v } else { nil } }
}

/// One SQLite connection in WAL mode, owned by a private serial queue: the C handle is only ever touched
/// by that queue, one access at a time (GRDB's model).
///
/// Access from Swift concurrency is `read`/`write`, which suspend the calling task (no thread waits) while
/// the queue runs the closure. The closures are synchronous, so an access cannot await another one: a
/// nested access can only be attempted through `readNow`/`writeNow` (for synchronous callers: opening the
/// queue, `skylift status`), and those refuse with ``SQLiteError/nestedAccess(path:)`` when called from the
/// queue itself rather than deadlock on it. `writeLater` from inside an access is safe: it runs after it.
///
/// `@unchecked Sendable`: the handle and the statement cache are only used on `queue`.
final class SQLiteDatabase: @unchecked Sendable {
    let path: String
    private let queue: DispatchQueue
    private let connection: SQLiteConnection
    /// Set on `queue`, so a call can tell it is already running there.
    private let onQueue = DispatchSpecificKey<Bool>()

    /// Opens (creating if asked) the database at `path`, switching it to WAL with full syncs.
    init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        self.path = path
        queue = DispatchQueue(label: "skylift.sqlite")
        queue.setSpecific(key: onQueue, value: true)
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
        if !readOnly {
            // WAL: readers (`skylift status`) never block the agent. synchronous=NORMAL: a commit survives
            // the process dying (kill -9) because it is in the kernel's page cache; only a power cut can lose
            // the last few, which costs a re-upload under the same name or a start-up rescan, never a file.
            // FULL would fsync every settled file, minutes for a first scan of 100,000 files.
            _ = try connection.query("PRAGMA journal_mode=WAL")
            try connection.execute("PRAGMA synchronous=NORMAL")
        }
    }

    /// Runs `body` inside one immediate transaction on the database's queue; rolls back if it throws.
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.transaction(body) }) }
        }
    }

    /// Runs `body` with the connection on the database's queue, outside any explicit transaction.
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body(self.connection) }) }
        }
    }

    /// Queues a write without waiting for it (errors are dropped); it runs after every access queued before.
    func writeLater(_ body: @escaping @Sendable (SQLiteConnection) throws -> Void) {
        queue.async { _ = try? self.transaction(body) }
    }

    /// `write` for synchronous callers outside Swift concurrency; blocks the calling thread.
    func writeNow<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        guard DispatchQueue.getSpecific(key: onQueue) == nil else { throw SQLiteError.nestedAccess(path: path) }
        return try queue.sync { try transaction(body) }
    }

    /// `read` for synchronous callers outside Swift concurrency; blocks the calling thread.
    func readNow<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        guard DispatchQueue.getSpecific(key: onQueue) == nil else { throw SQLiteError.nestedAccess(path: path) }
        return try queue.sync { try body(connection) }
    }

    /// Runs on `queue` only.
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

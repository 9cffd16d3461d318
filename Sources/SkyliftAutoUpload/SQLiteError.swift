import CSQLite

/// A failed SQLite call, with SQLite's own message and what was being done.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite's result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, ...).
    public var code: Int32
    /// SQLite's message for it.
    public var message: String
    /// The database file and the statement or step that failed.
    public var context: String

    public var description: String { "\(context): \(message) (sqlite code \(code))" }

    init(code: Int32, handle: OpaquePointer?, context: String) {
        self.code = code
        if let handle, let text = sqlite3_errmsg(handle) {
            message = String(cString: text)
        } else {
            message = String(cString: sqlite3_errstr(code))
        }
        self.context = context
    }
}

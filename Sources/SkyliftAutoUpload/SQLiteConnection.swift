import CSQLite

/// The connection as seen inside `read`/`write`; prepared statements are cached by SQL text.
final class SQLiteConnection {
    private let handle: OpaquePointer
    private let path: String
    private var statements: [String: OpaquePointer] = [:]

    init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    func execute(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) {
        _ = try run(sql, arguments, collect: false)
    }

    func query(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> [SQLiteRow] {
        try run(sql, arguments, collect: true)
    }

    /// Runs a script of several statements without arguments (schema set-up).
    func script(_ sql: String) throws(SQLiteError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, handle: handle, context: "\(path): schema") }
    }

    private func run(_ sql: String, _ arguments: [SQLiteValue], collect: Bool) throws(SQLiteError) -> [SQLiteRow] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, value) in arguments.enumerated() {
            let i = Int32(index + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(statement, i)
            case let .integer(v): rc = sqlite3_bind_int64(statement, i, v)
            case let .real(v): rc = sqlite3_bind_double(statement, i, v)
            case let .text(v): rc = sqlite3_bind_text(statement, i, v, -1, skylift_sqlite_transient())
            }
            guard rc == SQLITE_OK else { throw fail(rc, sql) }
        }
        var rows: [SQLiteRow] = []
        let count = sqlite3_column_count(statement)
        let columns = collect ? Self.columnNames(statement, count: count) : [:]
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw fail(rc, sql) }
            guard collect else { continue }
            var values: [SQLiteValue] = []
            values.reserveCapacity(Int(count))
            for c in 0..<count {
                switch sqlite3_column_type(statement, c) {
                case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(statement, c)))
                case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(statement, c)))
                case SQLITE_TEXT:
                    values.append(sqlite3_column_text(statement, c).map { .text(String(cString: $0)) } ?? .null)
                default: values.append(.null)
                }
            }
            rows.append(SQLiteRow(columns: columns, values: values))
        }
        return rows
    }

    /// Each result column's name → its position (the first, should two share a name).
    private static func columnNames(_ statement: OpaquePointer, count: Int32) -> [String: Int] {
        var names: [String: Int] = [:]
        for c in 0..<count {
            guard let name = sqlite3_column_name(statement, c).map({ String(cString: $0) }), names[name] == nil else { continue }
            names[name] = Int(c)
        }
        return names
    }

    private func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw fail(rc, sql) }
        statements[sql] = statement
        return statement
    }

    private func fail(_ rc: Int32, _ sql: String) -> SQLiteError {
        let head = sql.split(separator: " ").prefix(3).joined(separator: " ")
        return SQLiteError(code: rc, handle: handle, context: "\(path): \(head)")
    }
}

/// A value bound to or read from a statement.
enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// One result row, read by column name: the name the statement gives the column (its alias where the SQL
/// sets one with `AS`), so a query's column order can change without its readers noticing.
struct SQLiteRow: Sendable {
    /// Column name → position; one dictionary shared by every row of a query.
    let columns: [String: Int]
    let values: [SQLiteValue]

    /// The value of `column`. Asking for a column the statement does not have is a programming error.
    func value(_ column: String) -> SQLiteValue {
        guard let index = columns[column] else { preconditionFailure("no column \(column) in \(columns.keys.sorted())") }
        return values[index]
    }

    func int(_ column: String) -> Int64? { if case let .integer(v) = value(column) { v } else { nil } }
    func double(_ column: String) -> Double? {
        switch value(column) {
        case let .real(v): v
        case let .integer(v): Double(v)
        default: nil
        }
    }
    func text(_ column: String) -> String? { if case let .text(v) = value(column) { v } else { nil } }
}

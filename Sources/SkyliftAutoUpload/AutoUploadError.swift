/// Why the watch agent stopped or could not start. Descriptions name the path or URL and never hold tokens.
public enum AutoUploadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The state folder holds the queue of another watched folder.
    case stateBelongsToOtherFolder(state: String, existing: String, given: String)
    /// The state folder or database cannot be created or read.
    case stateNotUsable(path: String, reason: String)
    /// SQLite failed.
    case database(SQLiteError)
    /// The destination refused the credentials; retrying would not help.
    case authenticationRefused(url: String, status: Int)
    /// The destination cannot be used at all (wrong URL, not an upload server).
    case destinationUnusable(url: String, reason: String)

    public var description: String {
        switch self {
        case let .stateBelongsToOtherFolder(state, existing, given):
            return "state folder '\(state)' belongs to watched folder '\(existing)', not '\(given)'; "
                + "pass another --state for '\(given)'"
        case let .stateNotUsable(path, reason):
            return "state '\(path)': \(reason)"
        case let .database(error):
            return "watch state database: \(error.description)"
        case let .authenticationRefused(url, status):
            return "\(url) refused the credentials (HTTP \(status)); check --token"
        case let .destinationUnusable(url, reason):
            return "\(url): \(reason)"
        }
    }
}

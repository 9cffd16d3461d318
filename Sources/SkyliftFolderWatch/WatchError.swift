import SkyliftSystem

/// Errors that stop a `FolderWatcher` from starting.
public enum WatchError: Error, Equatable, CustomStringConvertible {
    /// The folder to watch does not exist.
    case missing(path: String)
    /// The path exists but is not a folder.
    case notADirectory(path: String)
    /// The folder cannot be listed.
    case unreadable(path: String, errno: Errno)
    /// The kernel refused to create a watch instance (for example `inotify_init1` failing).
    case backendFailed(reason: String)
    /// An ignore pattern is malformed.
    case badPattern(String)

    public var description: String {
        switch self {
        case let .missing(path): return "folder '\(path)' does not exist"
        case let .notADirectory(path): return "'\(path)' is not a folder"
        case let .unreadable(path, code): return "cannot read folder '\(path)' (errno \(code.rawValue))"
        case let .backendFailed(reason): return "cannot watch for file changes: \(reason)"
        case let .badPattern(pattern): return "bad ignore pattern '\(pattern)': unclosed '['"
        }
    }
}

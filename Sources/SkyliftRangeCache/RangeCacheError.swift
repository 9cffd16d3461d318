/// Why the cache could not do something. Descriptions name the path and never hold URLs' queries.
public enum RangeCacheError: Error, CustomStringConvertible, Equatable {
    /// Another process owns the cache directory.
    case locked(directory: String)
    /// The directory could not be created or opened.
    case unusableDirectory(path: String, reason: String)
    /// No room: everything evictable is gone and the block still does not fit under the size limit.
    case full(limit: Int64)
    /// The disk (or quota) is full.
    case diskFull(path: String)
    /// Any other file-system failure.
    case io(call: String, path: String, reason: String)
    /// The resource was reset (new representation) or evicted since this handle was made.
    case stale(key: String)

    public var description: String {
        switch self {
        case let .locked(directory):
            return "cache directory \(directory) is in use by another skylift process (lock held on \(directory)/lock)"
        case let .unusableDirectory(path, reason): return "cannot use cache directory \(path): \(reason)"
        case let .full(limit): return "cache is full: nothing more can be evicted under the \(limit)-byte limit"
        case let .diskFull(path): return "disk full while writing \(path)"
        case let .io(call, path, reason): return "\(call) failed on \(path): \(reason)"
        case let .stale(key): return "cached copy of \(key) was reset or evicted"
        }
    }
}

/// What a `FolderWatcher` reports. Paths are relative to the watched root.
public enum WatchEvent: Sendable, Equatable {
    /// A full listing of the tree: at start-up, after the kernel dropped events, and on each pass of the
    /// periodic fallback scan. Reconcile it against what you know and pass the paths that look new or
    /// changed to `FolderWatcher.recheck(_:)`; they are then reported as `settled` once they stop changing.
    case scanned(FolderScan)
    /// A file has been quiet for the settle window and a fresh check agreed with the previous one.
    case settled(FileSnapshot)
    /// A file kept changing for the whole `maxWait`; it stays watched and is reported again when it settles.
    case overdue(FileSnapshot)
    /// A file or folder moved inside the tree. For a folder, everything under `from` is now under `to`.
    case moved(from: String, to: String)
    /// A file or folder was deleted or moved out of the tree. For a folder, everything under it went too.
    case removed(String)
    /// Something the user should hear about; the watcher keeps going.
    case notice(WatchNotice)
}

/// A listing of the whole watched tree.
public struct FolderScan: Sendable, Equatable {
    /// Why the tree was listed.
    public enum Reason: String, Sendable, Equatable {
        case startup, overflow, poll
    }

    public var reason: Reason
    /// Every regular file not ignored, in no particular order.
    public var files: [FileSnapshot]
    /// Folders that could not be listed; what is under them is unknown, not deleted.
    public var skipped: [String]
    /// Seconds the listing took (watches included).
    public var duration: Double

    public init(reason: Reason, files: [FileSnapshot], skipped: [String], duration: Double = 0) {
        self.reason = reason
        self.files = files
        self.skipped = skipped
        self.duration = duration
    }

    /// Whether `path` lies in a folder that could not be listed.
    public func isUnknown(_ path: String) -> Bool {
        skipped.contains { path == $0 || path.hasPrefix($0 + "/") || $0.isEmpty }
    }
}

/// Conditions worth telling the user about.
public enum WatchNotice: Sendable, Equatable, CustomStringConvertible {
    /// A folder could not be listed or watched; it is skipped and the rest of the tree is still watched.
    case unreadable(path: String, reason: String)
    /// The kernel's per-user watch limit was reached; changes are found by periodic scans from now on.
    case watchLimitReached(path: String, scanInterval: Double)
    /// The kernel's event queue overflowed; a full rescan follows.
    case overflow
    /// The watched folder itself was deleted or moved away.
    case rootGone

    public var description: String {
        switch self {
        case let .unreadable(path, reason):
            return "skipping folder '\(path.isEmpty ? "." : path)': \(reason)"
        case let .watchLimitReached(path, interval):
            return "cannot watch '\(path)': the inotify watch limit is reached; raise it with "
                + "`sysctl fs.inotify.max_user_watches=524288` (and persist it in /etc/sysctl.d). Until then "
                + "the folder is rescanned every \(Int(interval)) s, so changes there show up late."
        case .overflow:
            return "the kernel dropped file events (inotify queue overflow); rescanning the whole folder"
        case .rootGone:
            return "the watched folder was deleted or moved away"
        }
    }
}

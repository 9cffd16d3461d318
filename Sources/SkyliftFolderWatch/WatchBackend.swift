import Dispatch
import SkyliftSystem

/// A raw notification from an OS backend, already translated to a root-relative path.
enum RawEvent: Sendable, Equatable {
    /// A file was created, written, or had its metadata changed. `closed` marks close-after-write, a hint only.
    case changed(String, closed: Bool)
    case createdDirectory(String)
    case removed(String, isDirectory: Bool)
    case movedFrom(String, cookie: UInt32, isDirectory: Bool)
    case movedTo(String, cookie: UInt32, isDirectory: Bool)
    /// The backend lost events; everything must be rescanned.
    case overflow
    case rootGone
}

/// Result of asking a backend to watch one folder.
enum WatchOutcome: Sendable, Equatable {
    case watching
    /// The per-user watch limit is exhausted (inotify `ENOSPC`).
    case limitReached
    case failed(errno: Errno)
}

/// An OS mechanism delivering file events. All calls arrive on the watcher's serial queue, and the
/// backend delivers on that same queue.
protocol WatchBackend: AnyObject, Sendable {
    /// Whether folders need watching one by one (inotify) or the root covers the tree (FSEvents).
    var watchesPerFolder: Bool { get }
    /// Begins delivering batches of events to `deliver`.
    func start(deliver: @escaping @Sendable ([RawEvent]) -> Void) throws(WatchError)
    func watch(folder relativePath: String) -> WatchOutcome
    /// Stops watching `relativePath` and every folder under it.
    func unwatch(subtree relativePath: String)
    func stop()
    /// Test seam: stop draining the kernel queue so it can overflow for real, then resume.
    func setPaused(_ paused: Bool)
}

/// Picks the backend for this platform.
func makePlatformBackend(rootPath: String, queue: DispatchQueue) throws(WatchError) -> any WatchBackend {
    #if os(Linux)
    return try InotifyBackend(rootPath: rootPath, queue: queue)
    #elseif canImport(Darwin)
    return FSEventsBackend(rootPath: rootPath, queue: queue)
    #else
    throw WatchError.backendFailed(reason: "no file-event backend on this platform")
    #endif
}

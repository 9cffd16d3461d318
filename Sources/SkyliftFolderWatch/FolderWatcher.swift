import Dispatch
import Foundation

/// Watches a folder tree and reports files once they have stopped changing.
///
/// ```swift
/// let watcher = try FolderWatcher(WatchConfiguration(root: url, settle: 2))
/// watcher.start()
/// for await event in watcher.events { ... }
/// ```
/// The first event is the start-up `scanned` listing. Every path is relative to the root.
public final class FolderWatcher: Sendable {
    /// Everything the watcher reports, in order. Finishes after `stop()`.
    public let events: AsyncStream<WatchEvent>
    let engine: WatchEngine

    /// Checks the root and prepares the OS backend; nothing is read until `start()`.
    public convenience init(_ configuration: WatchConfiguration) throws(WatchError) {
        let root = configuration.root.standardizedFileURL.path
        let trimmed = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        try self.init(configuration, fileSystem: PosixFileSystem(rootPath: trimmed))
    }

    init(_ configuration: WatchConfiguration, fileSystem: any FileSystemAccess,
         makeBackend: (String, DispatchQueue) throws(WatchError) -> any WatchBackend = makePlatformBackend) throws(WatchError) {
        let rootPath = configuration.root.standardizedFileURL.path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: rootPath, isDirectory: &isDir) else { throw .missing(path: rootPath) }
        guard isDir.boolValue else { throw .notADirectory(path: rootPath) }
        do {
            _ = try fileSystem.entries(of: "")
        } catch {
            throw .unreadable(path: rootPath, errno: error.errno)
        }
        let queue = DispatchQueue(label: "skylift.folderwatch")
        let backend = try makeBackend(rootPath, queue)
        let (stream, continuation) = AsyncStream.makeStream(of: WatchEvent.self, bufferingPolicy: .unbounded)
        events = stream
        engine = WatchEngine(configuration: configuration, fileSystem: fileSystem, backend: backend, queue: queue,
                             continuation: continuation)
    }

    /// Scans the tree (emitting `scanned(.startup)`), then reports changes as they settle.
    public func start() { engine.start() }

    /// Stops watching and finishes `events`. Pending, unsettled files are not reported.
    public func stop() { engine.stop() }

    /// Puts `paths` through the settle logic as if they had just changed; each is reported as `settled`
    /// once quiet (or dropped if missing). Used after reconciling a `scanned` listing.
    public func recheck(_ paths: [String]) { engine.recheck(paths) }

    /// A fresh check of `relativePath` under `root`, or nil if it is missing or not a regular file.
    public static func snapshot(of relativePath: String, in root: URL) -> FileSnapshot? {
        PosixFileSystem(rootPath: root.standardizedFileURL.path).snapshot(of: relativePath)
    }

    deinit { engine.stop() }
}

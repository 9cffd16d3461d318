#if canImport(Darwin)
import CoreServices
import Darwin
import Dispatch
import Foundation

/// Apple-platform backend: one FSEvents stream with per-file events over the whole tree. FSEvents is
/// recursive by itself, so folders need no watches of their own.
///
/// Renames arrive as two `ItemRenamed` events; the one whose path no longer exists is the old name. The
/// pair shares a cookie so the engine reports `moved(from:to:)`, as with inotify.
///
/// `@unchecked Sendable`: `stream` and `deliver` are set in `start` and cleared in `stop`, both on the
/// watcher's serial queue, which is also the queue FSEvents calls back on.
final class FSEventsBackend: WatchBackend, @unchecked Sendable {
    let watchesPerFolder = false
    private let rootPath: String
    private let queue: DispatchQueue
    private var stream: FSEventStreamRef?
    private var deliver: (@Sendable ([RawEvent]) -> Void)?

    init(rootPath: String, queue: DispatchQueue) {
        // FSEvents reports resolved paths (/private/var/... for /var/...).
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX))
        if realpath(rootPath, &resolved) != nil {
            self.rootPath = String(cString: resolved)
        } else {
            self.rootPath = rootPath
        }
        self.queue = queue
    }

    func start(deliver: @escaping @Sendable ([RawEvent]) -> Void) throws(WatchError) {
        self.deliver = deliver
        var context = FSEventStreamContext(version: 0, info: Unmanaged.passUnretained(self).toOpaque(),
                                           retain: nil, release: nil, copyDescription: nil)
        let flags = kFSEventStreamCreateFlagFileEvents | kFSEventStreamCreateFlagNoDefer
            | kFSEventStreamCreateFlagUseCFTypes | kFSEventStreamCreateFlagWatchRoot
        let callback: FSEventStreamCallback = { _, info, count, paths, flags, ids in
            guard let info else { return }
            let backend = Unmanaged<FSEventsBackend>.fromOpaque(info).takeUnretainedValue()
            let list = (unsafeBitCast(paths, to: NSArray.self) as? [String]) ?? []
            backend.receive(Array(list.prefix(count)), Array(UnsafeBufferPointer(start: flags, count: count)),
                            Array(UnsafeBufferPointer(start: ids, count: count)))
        }
        guard let stream = FSEventStreamCreate(kCFAllocatorDefault, callback, &context, [rootPath] as CFArray,
                                               FSEventStreamEventId(kFSEventStreamEventIdSinceNow), 0.05,
                                               FSEventStreamCreateFlags(flags)) else {
            throw .backendFailed(reason: "FSEventStreamCreate failed for '\(rootPath)'")
        }
        FSEventStreamSetDispatchQueue(stream, queue)
        guard FSEventStreamStart(stream) else {
            FSEventStreamInvalidate(stream)
            FSEventStreamRelease(stream)
            throw .backendFailed(reason: "FSEventStreamStart failed for '\(rootPath)'")
        }
        self.stream = stream
    }

    func watch(folder relativePath: String) -> WatchOutcome { .watching }
    func unwatch(subtree relativePath: String) {}
    func setPaused(_ paused: Bool) {}

    func stop() {
        guard let stream else { return }
        self.stream = nil
        deliver = nil
        FSEventStreamStop(stream)
        FSEventStreamInvalidate(stream)
        FSEventStreamRelease(stream)
    }

    private func receive(_ paths: [String], _ flags: [FSEventStreamEventFlags], _ ids: [FSEventStreamEventId]) {
        var events: [RawEvent] = []
        var renameCookie: UInt32?
        for (index, absolute) in paths.enumerated() where index < flags.count {
            let flag = Int(flags[index])
            func has(_ bit: Int) -> Bool { flag & bit != 0 }
            if has(kFSEventStreamEventFlagMustScanSubDirs) || has(kFSEventStreamEventFlagUserDropped)
                || has(kFSEventStreamEventFlagKernelDropped) {
                events.append(.overflow)
                continue
            }
            if has(kFSEventStreamEventFlagRootChanged) {
                events.append(.rootGone)
                continue
            }
            guard absolute.hasPrefix(rootPath + "/") else { continue }
            let path = String(absolute.dropFirst(rootPath.count + 1))
            let isDir = has(kFSEventStreamEventFlagItemIsDir)
            var st = stat()
            let exists = lstat(absolute, &st) == 0
            if has(kFSEventStreamEventFlagItemRenamed) {
                if !exists {
                    let cookie = UInt32(truncatingIfNeeded: ids[index])
                    renameCookie = cookie
                    events.append(.movedFrom(path, cookie: cookie, isDirectory: isDir))
                } else {
                    let cookie = renameCookie ?? UInt32(truncatingIfNeeded: ids[index])
                    renameCookie = nil
                    events.append(.movedTo(path, cookie: cookie, isDirectory: isDir))
                }
            } else if !exists {
                if has(kFSEventStreamEventFlagItemRemoved) { events.append(.removed(path, isDirectory: isDir)) }
            } else if isDir {
                if has(kFSEventStreamEventFlagItemCreated) { events.append(.createdDirectory(path)) }
            } else if has(kFSEventStreamEventFlagItemIsFile) {
                events.append(.changed(path, closed: false))
            }
        }
        if !events.isEmpty { deliver?(events) }
    }
}
#endif

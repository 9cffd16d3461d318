#if os(Linux)
import SkyliftSystem
import Dispatch
import Glibc

/// Linux backend: one inotify instance, one watch per folder, events read by a `DispatchSource` on the
/// inotify descriptor (so nothing runs while the tree is quiet).
///
/// `@unchecked Sendable`: every mutable member is touched only on `queue` (the watcher's serial queue),
/// except `source`'s suspend/resume in `setPaused`, which Dispatch makes thread-safe.
final class InotifyBackend: WatchBackend, @unchecked Sendable {
    let watchesPerFolder = true
    private let rootPath: String
    private let queue: DispatchQueue
    private let fd: Int32
    private var source: DispatchSourceRead?
    private var paths: [Int32: String] = [:]
    private var descriptors: [String: Int32] = [:]
    /// Folder renames seen as IN_MOVED_FROM, waiting for their IN_MOVED_TO so the path map follows them
    /// before later events in the same batch are translated.
    private var folderMoves: [UInt32: String] = [:]
    private var paused = false
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    private static let mask: UInt32 = UInt32(IN_CREATE | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM
        | IN_MOVED_TO | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) | UInt32(IN_EXCL_UNLINK)

    init(rootPath: String, queue: DispatchQueue) throws(WatchError) {
        self.rootPath = rootPath
        self.queue = queue
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            let code = errno
            let hint = code == EMFILE ? " (fs.inotify.max_user_instances reached)" : ""
            throw .backendFailed(reason: "inotify_init1 failed: \(String(cString: strerror(code)))\(hint)")
        }
        self.fd = fd
    }

    func start(deliver: @escaping @Sendable ([RawEvent]) -> Void) throws(WatchError) {
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in
            guard let self else { return }
            let events = self.drain()
            if !events.isEmpty { deliver(events) }
        }
        let fd = self.fd
        source.setCancelHandler { close(fd) }
        self.source = source
        source.resume()
    }

    func watch(folder relativePath: String) -> WatchOutcome {
        let path = relativePath.isEmpty ? rootPath : rootPath + "/" + relativePath
        let wd = inotify_add_watch(fd, path, Self.mask)
        guard wd >= 0 else {
            let code = Errno.current
            return code == .noSpace ? .limitReached : .failed(errno: code)
        }
        if let old = paths[wd], old != relativePath { descriptors[old] = nil }
        paths[wd] = relativePath
        descriptors[relativePath] = wd
        return .watching
    }

    /// Folders currently watched (for tests).
    var watchedFolders: [String] { queue.sync { Array(descriptors.keys) } }

    func unwatch(subtree relativePath: String) {
        for (path, wd) in descriptors where Self.isWithin(path, relativePath) {
            inotify_rm_watch(fd, wd)
            descriptors[path] = nil
            paths[wd] = nil
        }
        for (cookie, path) in folderMoves where Self.isWithin(path, relativePath) { folderMoves[cookie] = nil }
    }

    func stop() {
        guard let source else { return }
        self.source = nil
        if paused { source.resume() }
        source.cancel()
    }

    func setPaused(_ paused: Bool) {
        queue.sync {
            guard let source, paused != self.paused else { return }
            self.paused = paused
            if paused { source.suspend() } else { source.resume() }
        }
    }

    /// Reads everything the kernel has queued and translates it.
    private func drain() -> [RawEvent] {
        var events: [RawEvent] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + 16 <= n {
                    let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let cookie = raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
                    let len = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = UnsafeRawBufferPointer(rebasing: raw[(offset + 16)..<min(n, offset + 16 + len)])
                    let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                    offset += 16 + len
                    translate(wd: wd, mask: mask, cookie: cookie, name: name, into: &events)
                }
            }
        }
        return events
    }

    private func translate(wd: Int32, mask: UInt32, cookie: UInt32, name: String, into events: inout [RawEvent]) {
        func has(_ flag: Int32) -> Bool { mask & UInt32(bitPattern: flag) != 0 }
        if has(IN_Q_OVERFLOW) {
            events.append(.overflow)
            return
        }
        guard let folder = paths[wd] else { return }
        if has(IN_IGNORED) {
            paths[wd] = nil
            if descriptors[folder] == wd { descriptors[folder] = nil }
            return
        }
        if name.isEmpty {
            // Events about the watched folder itself; only the root's matter, the rest arrive via parents.
            if folder.isEmpty, has(IN_DELETE_SELF) || has(IN_MOVE_SELF) { events.append(.rootGone) }
            return
        }
        let path = folder.isEmpty ? name : folder + "/" + name
        let isDir = has(IN_ISDIR)
        if has(IN_MOVED_FROM) {
            if isDir { folderMoves[cookie] = path }
            events.append(.movedFrom(path, cookie: cookie, isDirectory: isDir))
        } else if has(IN_MOVED_TO) {
            if isDir, let from = folderMoves.removeValue(forKey: cookie) { renameFolders(from, to: path) }
            events.append(.movedTo(path, cookie: cookie, isDirectory: isDir))
        } else if has(IN_DELETE) {
            events.append(.removed(path, isDirectory: isDir))
        } else if has(IN_CREATE) {
            events.append(isDir ? .createdDirectory(path) : .changed(path, closed: false))
        } else if !isDir, has(IN_MODIFY) || has(IN_ATTRIB) || has(IN_CLOSE_WRITE) {
            events.append(.changed(path, closed: has(IN_CLOSE_WRITE)))
        }
    }

    private func renameFolders(_ from: String, to: String) {
        for (path, wd) in descriptors where Self.isWithin(path, from) {
            let moved = to + path.dropFirst(from.count)
            descriptors[path] = nil
            descriptors[moved] = wd
            paths[wd] = moved
        }
    }

    private static func isWithin(_ path: String, _ folder: String) -> Bool {
        folder.isEmpty || path == folder || path.hasPrefix(folder + "/")
    }
}
#endif

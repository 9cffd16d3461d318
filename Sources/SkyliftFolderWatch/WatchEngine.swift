import Dispatch
import SkyliftSystem

/// The portable core of `FolderWatcher`: turns raw backend events into settled reports.
///
/// `@unchecked Sendable`: all mutable state is confined to `queue`, a serial queue; the public entry
/// points hop onto it.
final class WatchEngine: @unchecked Sendable {
    let configuration: WatchConfiguration
    let fileSystem: any FileSystemAccess
    let backend: any WatchBackend
    let queue: DispatchQueue
    private let continuation: AsyncStream<WatchEvent>.Continuation

    private var settler: Settler
    /// IN_MOVED_FROM halves waiting for their IN_MOVED_TO, with the time they arrived.
    private var unpairedMoves: [UInt32: (path: String, isDirectory: Bool, at: Double)] = [:]
    /// Paths touched in the current batch, checked once when the batch (or a structural event) ends.
    private var touched: [String] = []
    private var touchedSet: Set<String> = []
    private var timer: DispatchWorkItem?
    private var timerDeadline: Double?
    private var lastFire = 0.0
    private var pollTimer: DispatchSourceTimer?
    private var limitNoticed = false
    private var running = false

    /// How long an IN_MOVED_FROM waits for its other half before it counts as a move out of the tree.
    static let movePairingWindow = 0.05
    /// Minimum spacing between settle checks, so thousands of files with staggered deadlines are decided
    /// in a few passes rather than one pass per file. Bounds the extra latency of a report.
    static let timerGranularity = 0.02

    init(configuration: WatchConfiguration, fileSystem: any FileSystemAccess, backend: any WatchBackend,
         queue: DispatchQueue, continuation: AsyncStream<WatchEvent>.Continuation) {
        self.configuration = configuration
        self.fileSystem = fileSystem
        self.backend = backend
        self.queue = queue
        self.continuation = continuation
        self.settler = Settler(settle: configuration.settle, maxWait: configuration.maxWait)
    }

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    func start() {
        queue.async { [self] in
            guard !running else { return }
            running = true
            do {
                try backend.start { [weak self] batch in self?.handle(batch) }
            } catch {
                continuation.yield(.notice(.unreadable(path: "", reason: "\(error)")))
            }
            // Watches go in while listing, so events for files created mid-scan are queued, not lost.
            let scan = scanTree(reason: .startup)
            continuation.yield(.scanned(scan))
        }
    }

    func stop() {
        queue.async { [self] in
            running = false
            backend.stop()
            timer?.cancel()
            timer = nil
            pollTimer?.cancel()
            pollTimer = nil
            continuation.finish()
        }
    }

    func recheck(_ paths: [String]) {
        queue.async { [self] in
            guard running else { return }
            let now = Self.now()
            for path in paths { settler.touch(path, at: now, check: fileSystem.snapshot(of: path)) }
            reschedule()
        }
    }

    /// Test seam: stop or resume draining the kernel's queue, to make it overflow for real.
    func setBackendPaused(_ paused: Bool) { backend.setPaused(paused) }

    /// Test seam: how many paths are pending and whether a settle timer is armed.
    func idleState() -> (pending: Int, timerArmed: Bool) {
        queue.sync { (settler.pending.count + unpairedMoves.count, timer != nil) }
    }

    // MARK: - Events

    func handle(_ batch: [RawEvent]) {
        guard running else { return }
        let ignore = configuration.ignore
        for event in batch {
            switch event {
            case let .changed(path, _):
                // Close-write is only a hint: it is activity like any other, and shortens nothing.
                if !ignore.ignores(path, isDirectory: false), touchedSet.insert(path).inserted { touched.append(path) }
            case let .createdDirectory(path):
                flushTouched()
                if !ignore.ignores(path, isDirectory: true) { arrive(folder: path) }
            case let .removed(path, isDirectory):
                flushTouched()
                if !ignore.ignores(path, isDirectory: isDirectory) { depart(path, isDirectory: isDirectory) }
            case let .movedFrom(path, cookie, isDirectory):
                flushTouched()
                unpairedMoves[cookie] = (path, isDirectory, Self.now())
            case let .movedTo(path, cookie, isDirectory):
                flushTouched()
                if let from = unpairedMoves.removeValue(forKey: cookie) {
                    move(from.path, to: path, isDirectory: isDirectory)
                } else {
                    arrive(path, isDirectory: isDirectory)
                }
            case .overflow:
                flushTouched()
                continuation.yield(.notice(.overflow))
                continuation.yield(.scanned(scanTree(reason: .overflow)))
            case .rootGone:
                continuation.yield(.notice(.rootGone))
            }
        }
        flushTouched()
        reschedule()
    }

    private func flushTouched() {
        guard !touched.isEmpty else { return }
        let now = Self.now()
        for path in touched { settler.touch(path, at: now, check: fileSystem.snapshot(of: path)) }
        touched.removeAll(keepingCapacity: true)
        touchedSet.removeAll(keepingCapacity: true)
    }

    /// Something appeared in the tree: a new file is pending, a new folder is watched and listed.
    private func arrive(_ path: String, isDirectory: Bool) {
        if isDirectory {
            if !configuration.ignore.ignores(path, isDirectory: true) { arrive(folder: path) }
        } else if !configuration.ignore.ignores(path, isDirectory: false) {
            settler.touch(path, at: Self.now(), check: fileSystem.snapshot(of: path))
        }
    }

    /// A new folder: watch it first, then list it, so files created before the watch existed are found.
    private func arrive(folder path: String) {
        var files: [FileSnapshot] = []
        var skipped: [String] = []
        walk(path, watch: true, files: &files, skipped: &skipped)
        let now = Self.now()
        for file in files { settler.touch(file.path, at: now, check: file) }
    }

    private func depart(_ path: String, isDirectory: Bool) {
        settler.remove(path)
        if isDirectory { backend.unwatch(subtree: path) }
        continuation.yield(.removed(path))
    }

    private func move(_ from: String, to: String, isDirectory: Bool) {
        let ignore = configuration.ignore
        switch (ignore.ignores(from, isDirectory: isDirectory), ignore.ignores(to, isDirectory: isDirectory)) {
        case (false, false):
            settler.rename(from, to: to)
            continuation.yield(.moved(from: from, to: to))
        case (true, false):
            // Atomic save: a temporary name renamed over the real one is a change of the real one.
            if isDirectory { backend.unwatch(subtree: to) }
            arrive(to, isDirectory: isDirectory)
        case (false, true):
            if isDirectory { backend.unwatch(subtree: to) }
            depart(from, isDirectory: isDirectory)
        case (true, true):
            if isDirectory { backend.unwatch(subtree: to) }
        }
    }

    // MARK: - Timer

    /// Keeps exactly one one-shot timer at the earliest deadline, and none while nothing is pending.
    private func reschedule() {
        var due = settler.nextDeadline
        if let oldest = unpairedMoves.values.map(\.at).min() {
            due = min(due ?? .infinity, oldest + Self.movePairingWindow)
        }
        guard let earliest = due else {
            timer?.cancel()
            timer = nil
            timerDeadline = nil
            return
        }
        let deadline = max(earliest, lastFire + Self.timerGranularity)
        if let current = timerDeadline, timer != nil, current <= deadline { return }
        timer?.cancel()
        let item = DispatchWorkItem { [weak self] in self?.fire() }
        timer = item
        timerDeadline = deadline
        let delay = max(0, deadline - Self.now())
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(delay * 1e9) + 1_000_000), execute: item)
    }

    private func fire() {
        timer = nil
        timerDeadline = nil
        guard running else { return }
        let now = Self.now()
        lastFire = now
        for (cookie, half) in unpairedMoves where now >= half.at + Self.movePairingWindow {
            unpairedMoves[cookie] = nil
            if !configuration.ignore.ignores(half.path, isDirectory: half.isDirectory) {
                depart(half.path, isDirectory: half.isDirectory)
            } else if half.isDirectory {
                backend.unwatch(subtree: half.path)
            }
        }
        let fileSystem = self.fileSystem
        for outcome in settler.evaluate(at: now, check: { fileSystem.snapshot(of: $0) }) {
            switch outcome {
            case let .settled(snapshot): continuation.yield(.settled(snapshot))
            case let .overdue(snapshot): continuation.yield(.overdue(snapshot))
            case .vanished: break  // its removal (if it was ever known) arrives as its own event
            }
        }
        reschedule()
    }

    // MARK: - Scanning

    /// Lists the whole tree, (re)adding watches on the way.
    func scanTree(reason: FolderScan.Reason) -> FolderScan {
        let start = Self.now()
        var files: [FileSnapshot] = []
        var skipped: [String] = []
        walk("", watch: backend.watchesPerFolder, files: &files, skipped: &skipped)
        return FolderScan(reason: reason, files: files, skipped: skipped, duration: Self.now() - start)
    }

    private func walk(_ start: String, watch: Bool, files: inout [FileSnapshot], skipped: inout [String]) {
        var stack = [start]
        let ignore = configuration.ignore
        while let folder = stack.popLast() {
            if watch { addWatch(folder) }
            let entries: [DirectoryEntry]
            do {
                entries = try fileSystem.entries(of: folder)
            } catch {
                if error.errno == .noSuchFile { continue }  // deleted while we walked
                skipped.append(folder)
                if watch { backend.unwatch(subtree: folder) }
                continuation.yield(.notice(.unreadable(path: folder, reason: error.reason)))
                continue
            }
            let prefix = folder.isEmpty ? "" : folder + "/"
            for entry in entries {
                let path = prefix + entry.name
                switch entry.kind {
                case let .file(snapshot):
                    if !ignore.ignores(path, isDirectory: false) { files.append(snapshot) }
                case .directory:
                    if !ignore.ignores(path, isDirectory: true) { stack.append(path) }
                case .other:
                    break
                }
            }
        }
    }

    private func addWatch(_ folder: String) {
        switch backend.watch(folder: folder) {
        case .watching:
            break
        case .limitReached:
            guard !limitNoticed else { return }
            limitNoticed = true
            continuation.yield(.notice(.watchLimitReached(path: folder, scanInterval: configuration.fallbackScanInterval)))
            startPolling()
        case let .failed(code):
            if code != .noSuchFile {
                continuation.yield(.notice(.unreadable(path: folder, reason: "cannot watch (errno \(code.rawValue))")))
            }
        }
    }

    /// The fallback once watches run out: a full listing every `fallbackScanInterval` seconds.
    private func startPolling() {
        guard pollTimer == nil else { return }
        let interval = max(0.05, configuration.fallbackScanInterval)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            guard let self, self.running else { return }
            self.continuation.yield(.scanned(self.scanTree(reason: .poll)))
        }
        pollTimer = timer
        timer.resume()
    }
}

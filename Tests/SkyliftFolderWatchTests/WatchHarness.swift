import Dispatch
import Foundation
import Synchronization
import TestProbes
@testable import SkyliftFolderWatch

/// A temporary folder plus a running watcher whose events are collected for assertions.
final class WatchHarness: Sendable {
    private let scratch: TempFolder
    let root: URL
    let watcher: FolderWatcher
    private let reader: Task<Void, Never>

    init(settle: Double = 0.3, maxWait: Double = 30, ignore: [String] = [], fallbackScanInterval: Double = 30,
         prepare: (URL) throws -> Void = { _ in },
         fileSystem: ((String) -> any FileSystemAccess)? = nil,
         backend: ((String, DispatchQueue) throws(WatchError) -> any WatchBackend)? = nil) throws {
        scratch = try TempFolder("fw")
        let root = scratch.url
        try prepare(root)
        self.root = root
        let config = WatchConfiguration(root: root, settle: settle, maxWait: maxWait, ignore: try IgnoreRules(ignore),
                                        fallbackScanInterval: fallbackScanInterval)
        let access = fileSystem?(root.path) ?? PosixFileSystem(rootPath: root.path)
        watcher = try FolderWatcher(config, fileSystem: access, makeBackend: backend ?? makePlatformBackend)
        let stream = watcher.events
        let sink = Sink()
        reader = Task { for await event in stream { sink.append(event) } }
        sinkRef = sink
        watcher.start()
    }

    private let sinkRef: Sink

    /// Collected events so far.
    var events: [WatchEvent] { sinkRef.all }

    /// Settled reports for `path`.
    func settled(_ path: String) -> [FileSnapshot] {
        events.compactMap { if case let .settled(s) = $0, s.path == path { return s } else { return nil } }
    }

    var allSettled: [FileSnapshot] {
        events.compactMap { if case let .settled(s) = $0 { return s } else { return nil } }
    }

    var notices: [WatchNotice] {
        events.compactMap { if case let .notice(n) = $0 { n } else { nil } }
    }

    func scans(_ reason: FolderScan.Reason) -> [FolderScan] {
        events.compactMap { if case let .scanned(s) = $0, s.reason == reason { return s } else { return nil } }
    }

    /// Waits until `condition` holds; gives up after `limit` seconds (a guard against hangs, not a timing test).
    @discardableResult
    func waitUntil(_ limit: Double = 20, _ condition: ([WatchEvent]) -> Bool) async -> Bool {
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            if condition(events) { return true }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return condition(events)
    }

    /// Waits for the start-up scan, so later changes are seen as events.
    func ready() async -> FolderScan? {
        await waitUntil { $0.contains { if case .scanned = $0 { true } else { false } } }
        return scans(.startup).first
    }

    func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    func write(_ path: String, _ text: String) throws {
        try Data(text.utf8).write(to: url(path))
    }

    func pause(_ seconds: Double) async { try? await Task.sleep(for: .milliseconds(Int(seconds * 1000))) }

    deinit {
        watcher.stop()
        reader.cancel()
    }
}

/// Thread-safe event list.
final class Sink: Sendable {
    private let events = Mutex<[WatchEvent]>([])
    func append(_ event: WatchEvent) { events.withLock { $0.append(event) } }
    var all: [WatchEvent] { events.withLock { $0 } }
}

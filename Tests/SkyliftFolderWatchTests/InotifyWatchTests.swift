#if os(Linux)
import SkyliftSystem
import Dispatch
import Foundation
import Glibc
import TestProbes
import Testing
@testable import SkyliftFolderWatch

/// Real inotify events in temporary folders. Settle windows are short; waits have generous limits and
/// nothing asserts on how long anything took.
@Suite(.serialized) struct InotifyWatchTests {
    @Test func startupScanListsFilesAndSkipsIgnored() async throws {
        let h = try WatchHarness(ignore: ["*.raw", "skipme/"]) { root in
            let fm = FileManager.default
            try fm.createDirectory(at: root.appendingPathComponent("a/b"), withIntermediateDirectories: true)
            try fm.createDirectory(at: root.appendingPathComponent(".cache/x"), withIntermediateDirectories: true)
            try fm.createDirectory(at: root.appendingPathComponent("skipme"), withIntermediateDirectories: true)
            for name in ["top.jpg", "a/b/deep.mov", "a/.hidden", "a/x.part", ".cache/x/in.jpg", "a/film.raw", "skipme/s.jpg"] {
                try Data("x".utf8).write(to: root.appendingPathComponent(name))
            }
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link.jpg").path,
                                                       withDestinationPath: "/etc/passwd")
        }
        let scan = try #require(await h.ready())
        #expect(Set(scan.files.map(\.path)) == ["top.jpg", "a/b/deep.mov"])
        #expect(scan.skipped.isEmpty)
        let backend = try #require(h.watcher.engine.backend as? InotifyBackend)
        // Ignored folders are not watched at all.
        #expect(Set(backend.watchedFolders) == ["", "a", "a/b"])
        // Nothing pending after the scan: no timer runs while idle.
        let idle = h.watcher.engine.idleState()
        #expect(idle.pending == 0 && !idle.timerArmed)
    }

    @Test func slowWriterIsReportedOnceWhole() async throws {
        let h = try WatchHarness(settle: 1.0)
        _ = await h.ready()
        let path = h.url("slow.bin").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(fd >= 0)
        // Appends for about three seconds with gaps a tenth of the settle window, from its own thread so a
        // busy cooperative pool cannot stretch a gap into a quiet period.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                let chunk = [UInt8](repeating: 0x5a, count: 4096)
                for _ in 0..<30 {
                    _ = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                    usleep(100_000)
                }
                close(fd)
                done.resume()
            }
        }
        let total = Int64(30 * 4096)
        await h.waitUntil { _ in !h.settled("slow.bin").isEmpty }
        await h.pause(1.5)  // time for a wrong second report to show up
        let reports = h.settled("slow.bin")
        #expect(reports.count == 1)
        #expect(reports.first?.size == total)
        #expect(!h.events.contains { if case .overdue = $0 { true } else { false } })
        let idle = h.watcher.engine.idleState()
        #expect(idle.pending == 0 && !idle.timerArmed)
    }

    @Test func neverQuietFileIsReportedAtMaxWaitAndAgainWhenDone() async throws {
        let h = try WatchHarness(settle: 0.4, maxWait: 1.0)
        _ = await h.ready()
        #expect(FileManager.default.createFile(atPath: h.url("live.log").path, contents: nil))
        let handle = try FileHandle(forWritingTo: h.url("live.log"))
        // Writes every 100 ms from its own thread: gaps far below the settle window even on a busy machine.
        let written = await onOwnThread {
            for _ in 0..<25 {
                guard (try? handle.write(contentsOf: Data(repeating: 1, count: 100))) != nil else { return false }
                usleep(100_000)
            }
            return (try? handle.close()) != nil
        }
        #expect(written)
        await h.waitUntil { _ in !h.settled("live.log").isEmpty }
        let overdue = h.events.compactMap { if case let .overdue(s) = $0 { s } else { nil } }
        #expect(!overdue.isEmpty)
        #expect(overdue.allSatisfy { $0.size < 2500 })
        #expect(h.settled("live.log").map(\.size) == [2500])
    }

    @Test func editorAtomicSavesReportTheRealNameOnly() async throws {
        let h = try WatchHarness()
        _ = await h.ready()
        // vim/gedit style: write a hidden temp file, rename it over the target.
        for version in 1...3 {
            let tmp = h.url(".notes.txt.swp")
            try Data("version \(version)".utf8).write(to: tmp)
            #expect(rename(tmp.path, h.url("notes.txt").path) == 0)
            await h.pause(0.05)
        }
        // Foundation's atomic write (temp file + rename).
        try Data("atomic".utf8).write(to: h.url("doc.txt"), options: .atomic)
        await h.waitUntil { _ in !h.settled("notes.txt").isEmpty && !h.settled("doc.txt").isEmpty }
        await h.pause(0.8)
        #expect(h.settled("notes.txt").map(\.size) == [Int64("version 3".utf8.count)])
        #expect(h.settled("doc.txt").count == 1)
        #expect(Set(h.allSettled.map(\.path)) == ["notes.txt", "doc.txt"])
        #expect(!h.events.contains { if case .moved = $0 { true } else { false } })
    }

    @Test func nestedFoldersCreatedAndFilledAtOnce() async throws {
        let h = try WatchHarness()
        _ = await h.ready()
        var expected: Set<String> = []
        // Created and filled in one go: files land before the watcher can add watches on the new folders.
        for a in 0..<3 {
            for b in 0..<3 {
                let dir = "n\(a)/m\(b)/deep"
                try FileManager.default.createDirectory(at: h.url(dir), withIntermediateDirectories: true)
                for f in 0..<4 {
                    try h.write("\(dir)/f\(f).jpg", "data")
                    expected.insert("\(dir)/f\(f).jpg")
                }
            }
        }
        await h.waitUntil { _ in Set(h.allSettled.map(\.path)) == expected }
        #expect(Set(h.allSettled.map(\.path)) == expected)
        #expect(h.allSettled.count == expected.count)
        // A file added later in the deepest new folder proves the folder is watched.
        try h.write("n2/m2/deep/late.jpg", "late")
        await h.waitUntil { _ in !h.settled("n2/m2/deep/late.jpg").isEmpty }
        #expect(h.settled("n2/m2/deep/late.jpg").count == 1)
    }

    @Test func burstOfThousandsIsReportedOnceEach() async throws {
        let h = try WatchHarness(settle: 0.3)
        _ = await h.ready()
        let count = 3000
        try FileManager.default.createDirectory(at: h.url("burst"), withIntermediateDirectories: true)
        for i in 0..<count { try h.write("burst/\(i).dat", "payload \(i)") }
        await h.waitUntil(60) { _ in h.allSettled.count >= count }
        let reported = h.allSettled.map(\.path)
        #expect(reported.count == count)
        #expect(Set(reported).count == count)
    }

    @Test func renamesArePairedNotReuploaded() async throws {
        let scratch = try TempFolder("fw-out"), outside = scratch.url
        let h = try WatchHarness { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("album"), withIntermediateDirectories: true)
            try Data("p".utf8).write(to: root.appendingPathComponent("album/p.jpg"))
            try Data("q".utf8).write(to: root.appendingPathComponent("q.jpg"))
            try Data("gone".utf8).write(to: root.appendingPathComponent("gone.jpg"))
        }
        _ = await h.ready()
        #expect(rename(h.url("q.jpg").path, h.url("album/q2.jpg").path) == 0)
        #expect(rename(h.url("album").path, h.url("album-2024").path) == 0)
        #expect(rename(h.url("gone.jpg").path, outside.appendingPathComponent("gone.jpg").path) == 0)
        try Data("in".utf8).write(to: outside.appendingPathComponent("in.jpg"))
        #expect(rename(outside.appendingPathComponent("in.jpg").path, h.url("in.jpg").path) == 0)
        await h.waitUntil { events in
            events.contains(.removed("gone.jpg")) && !h.settled("in.jpg").isEmpty
                && events.contains(.moved(from: "album", to: "album-2024"))
        }
        await h.pause(0.6)
        #expect(h.events.contains(.moved(from: "q.jpg", to: "album/q2.jpg")))
        #expect(h.events.contains(.moved(from: "album", to: "album-2024")))
        #expect(h.events.contains(.removed("gone.jpg")))
        #expect(h.allSettled.map(\.path) == ["in.jpg"])
        // The renamed folder keeps its watch under its new name.
        try h.write("album-2024/new.jpg", "n")
        await h.waitUntil { _ in !h.settled("album-2024/new.jpg").isEmpty }
        #expect(h.settled("album-2024/new.jpg").count == 1)
    }

    @Test func kernelQueueOverflowTriggersFullRescan() async throws {
        let h = try WatchHarness()
        _ = await h.ready()
        let limitText = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8)) ?? "16384"
        let limit = Int(limitText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 16384
        // Each write makes at least IN_CREATE + IN_MODIFY + IN_CLOSE_WRITE, so limit/2 files overflow the queue.
        let files = limit / 2 + 100
        try FileManager.default.createDirectory(at: h.url("flood"), withIntermediateDirectories: true)
        try h.write("flood/first", "x")
        await h.waitUntil { _ in !h.settled("flood/first").isEmpty }  // the folder is watched now
        h.watcher.engine.setBackendPaused(true)
        for i in 0..<files { try h.write("flood/\(i)", "x") }
        h.watcher.engine.setBackendPaused(false)
        await h.waitUntil(60) { _ in !h.scans(.overflow).isEmpty }
        #expect(h.notices.contains(.overflow))
        let scan = try #require(h.scans(.overflow).first)
        #expect(scan.files.filter { $0.path.hasPrefix("flood/") }.count == files + 1)
        // Watching goes on after the rescan (the new folder's watch was re-added).
        try h.write("flood/after", "y")
        await h.waitUntil { _ in !h.settled("flood/after").isEmpty }
        #expect(h.settled("flood/after").count == 1)
    }

    @Test func unreadableSubfolderIsSkippedWithAReason() async throws {
        // Root ignores permission bits, so as root the listing failure is injected at the file-system
        // seam; as another user the folder is really made unreadable with chmod.
        let asRoot = geteuid() == 0
        let h = try WatchHarness(prepare: { root in
            let locked = root.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            try Data("s".utf8).write(to: locked.appendingPathComponent("secret.jpg"))
            try Data("o".utf8).write(to: root.appendingPathComponent("open.jpg"))
            if !asRoot { chmod(locked.path, 0) }
        }, fileSystem: { rootPath in
            let real = PosixFileSystem(rootPath: rootPath)
            return asRoot ? DenyingFileSystem(real: real, denied: "locked") : real
        })
        defer { chmod(h.url("locked").path, 0o755) }
        let scan = try #require(await h.ready())
        #expect(scan.files.map(\.path) == ["open.jpg"])
        #expect(scan.skipped == ["locked"])
        let notice = h.events.compactMap { if case let .notice(n) = $0 { n } else { nil } }.first
        #expect(notice?.description.contains("'locked'") == true)
        #expect(notice?.description.contains("Permission denied") == true)
        try h.write("open2.jpg", "still watching")
        await h.waitUntil { _ in !h.settled("open2.jpg").isEmpty }
        #expect(h.settled("open2.jpg").count == 1)
    }

    @Test func watchLimitFallsBackToPeriodicScans() async throws {
        // The real limit is machine-wide (fs.inotify.max_user_watches); lowering it would break every other
        // process, so the backend answers ENOSPC for one folder here, the way inotify_add_watch would.
        let h = try WatchHarness(fallbackScanInterval: 0.3, prepare: { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("many"), withIntermediateDirectories: true)
        }, backend: { (root: String, queue: DispatchQueue) throws(WatchError) -> any WatchBackend in
            LimitedBackend(real: try InotifyBackend(rootPath: root, queue: queue), exhaustedAt: "many")
        })
        _ = await h.ready()
        let notice = h.events.compactMap { if case let .notice(n) = $0 { n } else { nil } }.first
        #expect(notice == .watchLimitReached(path: "many", scanInterval: 0.3))
        #expect(notice?.description.contains("fs.inotify.max_user_watches") == true)
        try h.write("many/unwatched.jpg", "found by the periodic scan")
        await h.waitUntil { _ in h.scans(.poll).contains { $0.files.contains { $0.path == "many/unwatched.jpg" } } }
        #expect(h.scans(.poll).contains { $0.files.contains { $0.path == "many/unwatched.jpg" } })
    }

    @Test func recheckReportsSettledOrDropsMissing() async throws {
        let h = try WatchHarness { root in try Data("old".utf8).write(to: root.appendingPathComponent("old.jpg")) }
        _ = await h.ready()
        h.watcher.recheck(["old.jpg", "missing.jpg"])
        await h.waitUntil { _ in !h.settled("old.jpg").isEmpty }
        await h.pause(0.5)
        #expect(h.allSettled.map(\.path) == ["old.jpg"])
        let idle = h.watcher.engine.idleState()
        #expect(idle.pending == 0 && !idle.timerArmed)
    }

    @Test func deletionsAreReported() async throws {
        let h = try WatchHarness { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("d"), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: root.appendingPathComponent("d/x.jpg"))
            try Data("y".utf8).write(to: root.appendingPathComponent("y.jpg"))
        }
        _ = await h.ready()
        try FileManager.default.removeItem(at: h.url("y.jpg"))
        try FileManager.default.removeItem(at: h.url("d"))
        await h.waitUntil { $0.contains(.removed("y.jpg")) && $0.contains(.removed("d")) }
        #expect(h.events.contains(.removed("d/x.jpg")))
        #expect(h.events.contains(.removed("d")))
        #expect(h.events.contains(.removed("y.jpg")))
    }

    @Test func badRootsAreNamed() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("fw-nope-\(UUID().uuidString)")
        #expect(throws: WatchError.missing(path: missing.path)) { try FolderWatcher(WatchConfiguration(root: missing)) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fw-file-\(UUID().uuidString)")
        try Data().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: WatchError.notADirectory(path: file.path)) { try FolderWatcher(WatchConfiguration(root: file)) }
    }
}

/// The real file system, except that one folder fails to list as `EACCES` would make it.
struct DenyingFileSystem: FileSystemAccess {
    let real: PosixFileSystem
    let denied: String
    func snapshot(of relativePath: String) -> FileSnapshot? { real.snapshot(of: relativePath) }
    func isDirectory(_ relativePath: String) -> Bool { real.isDirectory(relativePath) }
    func entries(of relativePath: String) throws(ListingFailure) -> [DirectoryEntry] {
        if relativePath == denied { throw PosixFileSystem.failure(.permissionDenied) }
        return try real.entries(of: relativePath)
    }
}

/// The real inotify backend, except that watching one folder fails as a full `max_user_watches` makes it.
final class LimitedBackend: WatchBackend {
    let real: InotifyBackend
    let exhaustedAt: String
    init(real: InotifyBackend, exhaustedAt: String) {
        self.real = real
        self.exhaustedAt = exhaustedAt
    }
    var watchesPerFolder: Bool { true }
    func start(deliver: @escaping @Sendable ([RawEvent]) -> Void) throws(WatchError) { try real.start(deliver: deliver) }
    func watch(folder relativePath: String) -> WatchOutcome {
        relativePath == exhaustedAt ? .limitReached : real.watch(folder: relativePath)
    }
    func unwatch(subtree relativePath: String) { real.unwatch(subtree: relativePath) }
    func stop() { real.stop() }
    func setPaused(_ paused: Bool) { real.setPaused(paused) }
}
#endif

/// Runs blocking work on a dedicated thread, away from the cooperative pool whose stalls would distort its timing.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

import Foundation
import SkyliftFolderWatch
import TestProbes
import Testing
@testable import SkyliftAutoUpload

/// The durable queue on a real SQLite file in a temporary state folder.
@Suite struct UploadQueueTests {
    /// Made by the queue (or the test); one per test, removed after it.
    let scratch: TempFolder
    var state: URL { scratch.url }

    init() throws {
        scratch = try TempFolder("aq", create: false)
    }

    func snap(_ path: String, _ size: Int64, mtime: Int64 = 100, inode: UInt64 = 1) -> FileSnapshot {
        FileSnapshot(path: path, size: size, mtimeNanoseconds: mtime, inode: inode)
    }

    @Test func settledFileIsQueuedClaimedAndDoneOnce() async throws {
        let q = try UploadQueue(stateDirectory: state, root: "/photos")
        #expect(try await q.enqueue(snap("a.jpg", 10)))
        let claimed = try #require(try await q.claimNext())
        #expect(claimed.path == "a.jpg" && claimed.state == .uploading && claimed.attempts == 1)
        #expect(try await q.claimNext() == nil)
        q.recordProgress("a.jpg", uploadURL: "http://h/uploads/1", sent: 4)
        #expect(try await q.file("a.jpg")?.uploadURL == "http://h/uploads/1")
        #expect(try await q.file("a.jpg")?.sent == 4)
        try await q.markDone(claimed)
        let done = try #require(try await q.file("a.jpg"))
        #expect(done.state == .done && done.uploadURL == nil && done.sent == 10)
        // The same state settling again (e.g. after a restart) is not uploaded twice.
        #expect(try await !q.enqueue(snap("a.jpg", 10)))
        #expect(try await q.claimNext() == nil)
        // New content is.
        #expect(try await q.enqueue(snap("a.jpg", 11, mtime: 200)))
        #expect(try await q.claimNext()?.size == 11)
    }

    @Test func stateSurvivesReopenAndInterruptedUploadsResume() async throws {
        do {
            let q = try UploadQueue(stateDirectory: state, root: "/photos")
            try await q.enqueue(snap("big.mov", 1000))
            _ = try await q.claimNext()
            q.recordProgress("big.mov", uploadURL: "http://h/uploads/9", sent: 300)
            // Queued behind nothing else: any later access runs after it.
            #expect(try await q.file("big.mov")?.sent == 300)
            // The process dies here: no markDone, no release.
        }
        let q = try UploadQueue(stateDirectory: state, root: "/photos")
        #expect(try await q.status().counts[.uploading] == 1)
        #expect(try await q.recoverInterrupted() == 1)
        let again = try #require(try await q.claimNext())
        #expect(again.path == "big.mov")
        #expect(again.uploadURL == "http://h/uploads/9")
        #expect(again.attempts == 2)
    }

    @Test func stateOfAnotherFolderIsRefusedNamingBoth() async throws {
        _ = try UploadQueue(stateDirectory: state, root: "/photos")
        #expect(throws: AutoUploadError.stateBelongsToOtherFolder(state: state.path, existing: "/photos", given: "/videos")) {
            try UploadQueue(stateDirectory: state, root: "/videos")
        }
        let message = AutoUploadError.stateBelongsToOtherFolder(state: state.path, existing: "/photos", given: "/videos").description
        #expect(message.contains("/photos") && message.contains("/videos") && message.contains(state.path))
    }

    @Test func changeDuringUploadKeepsTheNewContentPending() async throws {
        let q = try UploadQueue(stateDirectory: state, root: "/r")
        try await q.enqueue(snap("f", 1))
        let claimed = try #require(try await q.claimNext())
        try await q.enqueue(snap("f", 2, mtime: 300))  // settled again with new content while uploading
        try await q.markDone(claimed)                  // the old content's upload finishing must not hide it
        #expect(try await q.file("f")?.state == .pending)
        #expect(try await q.file("f")?.size == 2)
    }

    @Test func failuresWaitForTheirRetryTime() async throws {
        let q = try UploadQueue(stateDirectory: state, root: "/r")
        try await q.enqueue(snap("f", 1))
        _ = try await q.claimNext()
        let now = UploadQueue.now()
        try await q.markFailed("f", reason: "HTTP 503 from http://h/dav/f", retryAt: now + 60)
        #expect(try await q.claimNext(now: now) == nil)
        #expect(try await q.nextRetry() == now + 60)
        let status = try await q.status()
        #expect(status.counts[.failed] == 1)
        #expect(status.lastErrors.first?.reason == "HTTP 503 from http://h/dav/f")
        #expect(try await q.claimNext(now: now + 61)?.path == "f")
    }

    @Test func movesFollowFoldersAndKeepRemoteNames() async throws {
        let q = try UploadQueue(stateDirectory: state, root: "/r")
        for p in ["album/a.jpg", "album/sub/b.jpg", "albums.txt"] {
            try await q.enqueue(snap(p, 1))
            try await q.markDone(try #require(try await q.claimNext()))
        }
        try await q.move("album", to: "2024/album")
        let paths = try await q.allFiles().map(\.path)
        #expect(paths == ["2024/album/a.jpg", "2024/album/sub/b.jpg", "albums.txt"])
        #expect(try await q.file("2024/album/a.jpg")?.remotePath == "album/a.jpg")
        #expect(try await q.file("2024/album/a.jpg")?.state == .done)
        // Changed content after a move goes to the file's own (new) name.
        try await q.enqueue(snap("2024/album/a.jpg", 5, mtime: 999))
        #expect(try await q.file("2024/album/a.jpg")?.remotePath == "2024/album/a.jpg")
        #expect(try await q.remove("2024").map(\.path) == ["2024/album/a.jpg", "2024/album/sub/b.jpg"])
        #expect(try await q.allFiles().map(\.path) == ["albums.txt"])
    }

    @Test func aNewFileAtAMovedFilesOldNameDoesNotOverwriteItsCopy() async throws {
        let q = try UploadQueue(stateDirectory: state, root: "/r")
        try await q.enqueue(snap("a.jpg", 1))
        try await q.markDone(try #require(try await q.claimNext()))
        try await q.move("a.jpg", to: "b.jpg")
        #expect(try await q.claimNext() == nil)
        // A new a.jpg will be uploaded to remote a.jpg, where b.jpg's copy lives: b.jpg goes to its own name.
        try await q.enqueue(snap("a.jpg", 2, inode: 9))
        let b = try #require(try await q.file("b.jpg"))
        #expect(b.state == .pending && b.remotePath == "b.jpg")
        #expect(try await q.file("a.jpg")?.remotePath == "a.jpg")
    }

    @Test func reconcileFindsNewChangedAndGoneButNotUnknown() async throws {
        let q = try UploadQueue(stateDirectory: state, root: "/r")
        for p in ["same", "edited", "deleted", "locked/x"] {
            try await q.enqueue(snap(p, 1))
            try await q.markDone(try #require(try await q.claimNext()))
        }
        let scan = FolderScan(reason: .startup,
                              files: [snap("same", 1), snap("edited", 1, mtime: 555), snap("added", 3)],
                              skipped: ["locked"])
        let (changed, gone) = try await q.reconcile(scan)
        #expect(changed == ["added", "edited"])
        #expect(gone.map(\.path) == ["deleted"])
        #expect(try await q.allFiles().map(\.path) == ["edited", "locked/x", "same"])
    }

    @Test func statusReaderSeesTheAgentsWrites() async throws {
        let q = try UploadQueue(stateDirectory: state, root: "/r")
        try await q.enqueue(snap("a", 10))
        try await q.enqueue(snap("b", 20))
        _ = try await q.claimNext()
        q.recordProgress("a", uploadURL: "http://h/u/1", sent: 7)
        _ = try await q.file("a")  // runs after the queued progress write, so it is committed
        let reader = try await UploadQueue(readingStateIn: state)
        let status = try await reader.status()
        #expect(status.root == "/r")
        #expect(status.counts == [.pending: 1, .uploading: 1, .waiting: 0, .done: 0, .failed: 0])
        #expect(status.inFlight.map(\.path) == ["a"])
        #expect(status.inFlight.first?.sent == 7)
    }

    @Test func missingStateIsNamed() async {
        let nowhere = state.appendingPathComponent("none")
        await #expect(throws: AutoUploadError.self) { try await UploadQueue(readingStateIn: nowhere) }
    }

    @Test func sqliteErrorsCarrySQLitesMessage() async throws {
        let q = try UploadQueue(stateDirectory: state, root: "/r")
        await #expect {
            try await q.db.write { c in try c.execute("INSERT INTO files(path) VALUES ('x')") }
        } throws: { error in
            guard let e = error as? SQLiteError else { return false }
            return e.message.contains("NOT NULL") && e.description.contains(UploadQueue.fileName)
        }
    }

    /// Nothing reaches the connection synchronously any more (no `queue.sync`): a write queued from inside
    /// a write runs after it, in its own transaction, and the database stays usable.
    @Test func aWriteQueuedFromInsideAWriteRunsAfterIt() async throws {
        let q = try UploadQueue(stateDirectory: state, root: "/r")
        let db = q.db
        try await db.write { c in
            try c.execute("INSERT INTO meta(key, value) VALUES ('first', '1')")
            db.writeLater { later in try later.execute("INSERT INTO meta(key, value) VALUES ('later', '1')") }
        }
        #expect(try await q.enqueue(snap("after.jpg", 1)))
        let after = try await db.read { c in try c.query("SELECT key FROM meta ORDER BY key").compactMap { $0.text("key") } }
        #expect(after == ["first", "later", "root"])
    }

    /// `skylift status` from async code while the agent's connection is held inside a write: more readers
    /// than Swift's pool has threads open the queue and read its status at once. None of them blocks a
    /// pool thread on SQLite (opening and reading run on SQLite's executors, WAL readers do not wait for the
    /// writer), so all finish while the write is still held; a reader waiting synchronously on a pool thread
    /// would stall the others behind it.
    @Test(.timeLimit(.minutes(1))) func statusFromAsyncCodeDoesNotWaitForTheWriter() async throws {
        let q = try UploadQueue(stateDirectory: state, root: "/r")
        try await q.enqueue(snap("a", 10))
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let writer = Task {
            try await q.db.write { c in
                try c.execute("UPDATE files SET sent = 5 WHERE path = 'a'")
                held.signal()
                release.wait()
            }
        }
        await withCheckedContinuation { done in DispatchQueue.global().async { held.wait(); done.resume() } }
        let readers = 4 * ProcessInfo.processInfo.activeProcessorCount + 4
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<readers {
                group.addTask { try await UploadQueue(readingStateIn: state).status().counts[.pending] ?? -1 }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        release.signal()
        try await writer.value
        #expect(counts == Array(repeating: 1, count: readers))
        #expect(try await q.file("a")?.sent == 5)
    }

    @Test func thousandsOfRowsReconcileInOneTransaction() async throws {
        let q = try UploadQueue(stateDirectory: state, root: "/r")
        let files = (0..<5000).map { snap("d/\($0)", Int64($0)) }
        let (changed, gone) = try await q.reconcile(FolderScan(reason: .startup, files: files, skipped: []))
        #expect(changed.count == 5000 && gone.isEmpty)
    }
}

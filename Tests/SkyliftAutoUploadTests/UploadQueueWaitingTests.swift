import Foundation
import SkyliftFolderWatch
import SkyliftCore
import TestProbes
import Testing
@testable import SkyliftAutoUpload

/// Files waiting for space in the durable queue, on a real SQLite file; and a queue made before that state.
@Suite struct UploadQueueWaitingTests {
    /// Made by the queue (or the test); one per test, removed after it.
    let scratch: TempFolder
    var state: URL { scratch.url }

    init() throws {
        scratch = try TempFolder("aqw", create: false)
    }

    /// The table as queues were made before the `waiting` state and before versions were kept (user_version 0):
    /// schema version 1's tables, whose CHECK does not allow `waiting`, and one of the resume columns.
    func makeOldQueue() throws {
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        _ = try SQLiteDatabase(path: state.appendingPathComponent(UploadQueue.fileName).path) { c in
            try QueueSchema.migrations[0].apply(c)
            try c.script("""
                ALTER TABLE files ADD COLUMN resume_identity TEXT;
                INSERT INTO meta(key, value) VALUES ('root', '/watched');
                INSERT INTO files(path, remote_path, size, mtime, inode, state, upload_url, sent, retry_at, updated, resume_identity)
                VALUES ('a.bin', 'a.bin', 100, 7, 9, 'failed', 'http://up/1', 40, 0, 0, 'id-1');
                """)
        }
    }

    @Test func anOldQueueTakesTheWaitingStateAndKeepsItsRows() async throws {
        try makeOldQueue()
        let queue = try UploadQueue(stateDirectory: state, root: "/watched")
        let claimed = try #require(try await queue.claimNext())
        #expect(claimed.path == "a.bin" && claimed.uploadURL == "http://up/1" && claimed.sent == 40)

        let policy = RetryPolicy()
        #expect(try await queue.markWaiting("a.bin", reason: "server out of space", kept: 32, policy: policy) == 60)
        let waiting = try #require(try await queue.file("a.bin"))
        #expect(waiting.state == .waiting && waiting.sent == 32 && waiting.uploadURL == "http://up/1")
        let status = try await queue.status()
        #expect(status.counts[.waiting] == 1 && status.waiting.map(\.path) == ["a.bin"])
        // Not due yet: nothing to claim; the earliest retry is the wait's end.
        #expect(try await queue.claimNext() == nil)
        #expect(try await queue.nextRetry() == waiting.retryAt)

        // Waits in a row grow (1, 2, 4... minutes, at most 15); an upload that finishes starts the count again.
        _ = try await queue.claimNext(now: UploadQueue.now() + 3600)
        #expect(try await queue.markWaiting("a.bin", reason: "server out of space", kept: 32, policy: policy) == 120)
        let again = try #require(try await queue.claimNext(now: UploadQueue.now() + 3600))
        #expect(try await queue.markDone(again))
        #expect(try await queue.file("a.bin")?.state == .done)
    }

    @Test func spaceWaitsDoubleUpToTheirCap() {
        var policy = RetryPolicy()
        #expect((1...6).map { policy.spaceDelay(beforeWait: $0) } == [60, 120, 240, 480, 900, 900])
        policy.spaceBaseDelay = 2
        policy.spaceMaxDelay = 30
        #expect((1...5).map { policy.spaceDelay(beforeWait: $0) } == [2, 4, 8, 16, 30])
    }
}

import Foundation
import SkyliftFolderWatch
import Testing
@testable import SkyliftAutoUpload

/// The agent end to end: real inotify events, the real upload engine, the real embedded StorageServer.
@Suite(.serialized) struct WatchAgentTests {
    @Test func existingAndNewFilesAreUploadedOnceIntoFolders() async throws {
        let h = try AgentHarness()
        try h.write("before.jpg", bytes(1000))
        try h.write("trip/day1/a.mov", bytes(70_000, seed: 2))
        let run = try await h.startAgent()
        try h.write("trip/day2/new.jpg", bytes(5000, seed: 3))
        await run.waitUntil { ["trip/day2/new.jpg", "trip/day1/a.mov", "before.jpg"].allSatisfy { run.uploaded($0) == 1 } }
        #expect(h.stored("before.jpg") == bytes(1000))
        #expect(h.stored("trip/day1/a.mov") == bytes(70_000, seed: 2))
        #expect(h.stored("trip/day2/new.jpg") == bytes(5000, seed: 3))
        #expect(await run.stop() == nil)
        #expect(h.creations == 3)
        let status = try await UploadQueue(readingStateIn: h.state).status()
        #expect(status.counts[.done] == 3)
        // Finished uploads leave no resume records behind (the queue remembers them).
        let records = (try? FileManager.default.contentsOfDirectory(atPath: h.state.appendingPathComponent("uploads").path)) ?? []
        #expect(records.isEmpty)
        #expect(run.events.all.last == .stopped)
    }

    @Test func slowWriterIsUploadedOnceWhole() async throws {
        let h = try AgentHarness()
        // The settle window is ten times the writer's gap, and the writer runs on its own thread, so a busy
        // machine cannot stretch a gap into a quiet period.
        let run = try await h.startAgent(settle: 1.0)
        await run.waitUntil { run.events.all.contains { if case .scanned = $0 { true } else { false } } }
        let url = h.watched.appendingPathComponent("recording.wav")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        let expected = (0..<25).flatMap { bytes(2000, seed: UInt8($0)) }
        let written = await onOwnThread {
            for i in 0..<25 {
                guard (try? handle.write(contentsOf: Data(expected[i * 2000 ..< (i + 1) * 2000]))) != nil else { return false }
                usleep(100_000)
            }
            return (try? handle.close()) != nil
        }
        #expect(written)
        await run.waitUntil { run.uploaded("recording.wav") == 1 }
        try await Task.sleep(for: .milliseconds(800))
        #expect(run.uploaded("recording.wav") == 1)
        #expect(h.stored("recording.wav") == expected)
        #expect(h.creations == 1)
        #expect(await run.stop() == nil)
    }

    @Test func neverQuietFileIsSentAtMaxWaitAndAgainWhenDone() async throws {
        let h = try AgentHarness()
        let run = try await h.startAgent(settle: 0.4, maxWait: 1)
        await run.waitUntil { run.events.all.contains { if case .scanned = $0 { true } else { false } } }
        let url = h.watched.appendingPathComponent("live.log")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        let lines = (0..<30).map { Array("line \($0)\n".utf8) }
        let expected = lines.flatMap { $0 }
        // Appends every 100 ms for 3 s from its own thread: never quiet for the settle window.
        let written = await onOwnThread {
            for line in lines {
                guard (try? handle.write(contentsOf: Data(line))) != nil else { return false }
                usleep(100_000)
            }
            return (try? handle.close()) != nil
        }
        #expect(written)
        await run.waitUntil { h.stored("live.log") == expected && run.uploaded("live.log") >= 1 }
        #expect(run.events.all.contains { if case .settled(_, overdue: true) = $0 { true } else { false } })
        #expect(run.uploaded("live.log") >= 1)
        #expect(h.stored("live.log") == expected)
        #expect(await run.stop() == nil)
    }

    @Test func changedAfterUploadIsUploadedAgainAndMovesAreNot() async throws {
        let h = try AgentHarness()
        try h.write("doc.txt", Array("first".utf8))
        try h.write("keep.jpg", bytes(300))
        let run = try await h.startAgent()
        await run.waitUntil { run.uploaded("doc.txt") == 1 && run.uploaded("keep.jpg") == 1 }
        try h.write("doc.txt", Array("second version".utf8))
        await run.waitUntil { run.uploaded("doc.txt") == 2 }
        #expect(h.stored("doc.txt") == Array("second version".utf8))
        // A move inside the tree: no new upload, the remote copy moves along.
        let writesBefore = h.writes
        #expect(rename(h.watched.appendingPathComponent("keep.jpg").path,
                       h.watched.appendingPathComponent("moved.jpg").path) == 0)
        await run.waitUntil { run.events.all.contains(.moved(from: "keep.jpg", to: "moved.jpg", remoteMoved: true)) }
        try await Task.sleep(for: .milliseconds(700))
        #expect(h.writes == writesBefore)
        #expect(run.uploaded("moved.jpg") == 0)
        #expect(h.stored("moved.jpg") == bytes(300))
        #expect(h.stored("keep.jpg") == nil)
        let row = try #require(try await UploadQueue(readingStateIn: h.state).file("moved.jpg"))
        #expect(row.state == .done && row.remotePath == "moved.jpg")
        #expect(await run.stop() == nil)
    }

    @Test func aMovedFileAndARenamedFolderAreMovedOnTheRemoteWithNoUpload() async throws {
        let h = try AgentHarness()
        try h.write("trip/day1/a.mov", bytes(70_000, seed: 2))
        try h.write("trip/day1/b.jpg", bytes(3000, seed: 3))
        try h.write("trip/notes.txt", bytes(100, seed: 4))
        try h.write("loose.jpg", bytes(500, seed: 5))
        let run = try await h.startAgent()
        await run.waitUntil { ["trip/day1/a.mov", "trip/day1/b.jpg", "trip/notes.txt", "loose.jpg"].allSatisfy { run.uploaded($0) == 1 } }
        let writesBefore = h.writes
        #expect(writesBefore >= 4)

        #expect(rename(h.watched.appendingPathComponent("trip").path, h.watched.appendingPathComponent("trip 2026").path) == 0)
        await run.waitUntil { run.events.all.contains(.moved(from: "trip", to: "trip 2026", remoteMoved: true)) }
        #expect(rename(h.watched.appendingPathComponent("loose.jpg").path,
                       h.watched.appendingPathComponent("trip 2026/day1/loose.jpg").path) == 0)
        await run.waitUntil { run.events.all.contains(.moved(from: "loose.jpg", to: "trip 2026/day1/loose.jpg", remoteMoved: true)) }
        try await Task.sleep(for: .milliseconds(700))

        // The remote tree mirrors the local one, and not a byte was sent for it.
        #expect(h.writes == writesBefore)
        #expect(h.stored("trip 2026/day1/a.mov") == bytes(70_000, seed: 2))
        #expect(h.stored("trip 2026/day1/b.jpg") == bytes(3000, seed: 3))
        #expect(h.stored("trip 2026/notes.txt") == bytes(100, seed: 4))
        #expect(h.stored("trip 2026/day1/loose.jpg") == bytes(500, seed: 5))
        #expect(!FileManager.default.fileExists(atPath: h.store.appendingPathComponent("trip").path))
        #expect(h.stored("loose.jpg") == nil)
        let rows = try await UploadQueue(readingStateIn: h.state).allFiles()
        #expect(rows.map(\.path) == ["trip 2026/day1/a.mov", "trip 2026/day1/b.jpg", "trip 2026/day1/loose.jpg", "trip 2026/notes.txt"])
        #expect(rows.allSatisfy { $0.state == .done && $0.remotePath == $0.path })
        #expect(await run.stop() == nil)
    }

    /// A file moved while the agent holds it as `uploading`: before its bytes went out (it is sent under the
    /// new name) or after (its copy, sent under the old name, is moved); either way it is sent once and ends up
    /// under its new name only.
    @Test(arguments: [UploadGate.Point.before, .after]) func aFileMovedDuringItsUploadEndsUpUnderItsNewName(point: UploadGate.Point) async throws {
        let h = try AgentHarness()
        let gate = UploadGate(point)
        let run = try await h.startAgent(gate: gate)
        await run.waitUntil { run.events.all.contains { if case .scanned = $0 { true } else { false } } }
        try h.write("old.jpg", bytes(4000, seed: 6))
        #expect(await run.waitUntil { gate.reached })
        #expect(rename(h.watched.appendingPathComponent("old.jpg").path, h.watched.appendingPathComponent("new.jpg").path) == 0)
        await run.waitUntil { run.events.all.contains { if case .moved(from: "old.jpg", to: "new.jpg", _) = $0 { true } else { false } } }
        gate.open()
        await run.waitUntil { run.uploaded("new.jpg") == 1 }
        try await Task.sleep(for: .milliseconds(500))
        #expect(h.stored("new.jpg") == bytes(4000, seed: 6))
        #expect(h.stored("old.jpg") == nil)
        #expect(h.creations == 1)
        #expect(run.uploaded("old.jpg") == 0)
        let rows = try await UploadQueue(readingStateIn: h.state).allFiles()
        #expect(rows.map(\.path) == ["new.jpg"])
        #expect(rows.first?.state == .done && rows.first?.remotePath == "new.jpg")
        #expect(await run.stop() == nil)
    }

    @Test func deletesPropagateOnlyWhenMirroring() async throws {
        let h = try AgentHarness()
        try h.write("a.jpg", bytes(100))
        try h.write("b.jpg", bytes(100))
        var run = try await h.startAgent()
        await run.waitUntil { run.uploaded("a.jpg") == 1 && run.uploaded("b.jpg") == 1 }
        try FileManager.default.removeItem(at: h.watched.appendingPathComponent("a.jpg"))
        await run.waitUntil { run.events.all.contains(.removed(path: "a.jpg", remoteDeleted: false)) }
        #expect(h.stored("a.jpg") != nil)
        #expect(await run.stop() == nil)
        run = try await h.startAgent(mirrorDeletes: true)
        await run.waitUntil { run.events.all.contains { if case .scanned = $0 { true } else { false } } }
        try FileManager.default.removeItem(at: h.watched.appendingPathComponent("b.jpg"))
        await run.waitUntil { run.events.all.contains(.removed(path: "b.jpg", remoteDeleted: true)) }
        #expect(h.stored("b.jpg") == nil)
        #expect(await run.stop() == nil)
    }

    @Test func changesWhileStoppedAreFoundAtStartup() async throws {
        let h = try AgentHarness()
        try h.write("old.jpg", bytes(100))
        try h.write("edit.txt", Array("v1".utf8))
        var run = try await h.startAgent()
        await run.waitUntil { run.uploaded("old.jpg") == 1 && run.uploaded("edit.txt") == 1 }
        #expect(await run.stop() == nil)
        let creations = h.creations
        // While nobody watches: one file added, one edited, one untouched.
        try h.write("added/new.jpg", bytes(400, seed: 9))
        try h.write("edit.txt", Array("v2 longer".utf8))
        run = try await h.startAgent()
        await run.waitUntil { run.uploaded("added/new.jpg") == 1 && run.uploaded("edit.txt") == 1 }
        try await Task.sleep(for: .milliseconds(600))
        #expect(run.uploaded("old.jpg") == 0)
        #expect(h.stored("added/new.jpg") == bytes(400, seed: 9))
        #expect(h.stored("edit.txt") == Array("v2 longer".utf8))
        #expect(h.creations == creations + 2)
        #expect(await run.stop() == nil)
    }

    @Test func stopPausesMidUploadAndRestartResumesFromServerOffset() async throws {
        let h = try AgentHarness()
        let size = 24 << 20
        try h.write("big.bin", bytes(size, seed: 5))
        // Small parts so the upload is many PATCH requests and a stop lands between them; with the embedded
        // server's block-checksum the file goes in one PATCH, so the stop comes once the server has recorded a
        // block (its .blocks ledger holds a digest) and the body is still streaming.
        var run = try await h.startAgent(partLength: 1 << 20)
        await run.waitUntil { h.accessLog.all.filter { $0.hasPrefix("PATCH ") }.count >= 2 || h.holdsARecordedBlock }
        #expect(await run.stop() == nil)
        let row = try #require(try await UploadQueue(readingStateIn: h.state).file("big.bin"))
        if row.state != .done {
            #expect(row.state == .pending)
            #expect(row.uploadURL != nil)
            run = try await h.startAgent(partLength: 1 << 20)
            await run.waitUntil(60) { run.uploaded("big.bin") == 1 }
            #expect(run.events.all.contains { if case let .resumed(_, from) = $0 { from > 0 } else { false } })
            #expect(await run.stop() == nil)
        }
        #expect(h.stored("big.bin") == bytes(size, seed: 5))
        #expect(h.creations == 1)
        // The queue row was the resume record: no resume file beside the database.
        #expect(!FileManager.default.fileExists(atPath: h.state.appendingPathComponent("uploads").path))
    }

    @Test func refusedCredentialsStopTheAgentWithAClearError() async throws {
        let h = try AgentHarness()
        await #expect(throws: AutoUploadError.authenticationRefused(url: h.davURL.absoluteString, status: 401)) {
            _ = try await EngineUploader.connect(to: h.davURL, token: "wrong")
        }
        let message = AutoUploadError.authenticationRefused(url: h.davURL.absoluteString, status: 401).description
        #expect(message.contains("--token") && !message.contains("wrong"))
    }

    @Test func vanishedBeforeUploadIsDroppedQuietly() async throws {
        let h = try AgentHarness()
        // Settled once, then deleted before any upload ran (the agent was not running).
        let queue = try UploadQueue(stateDirectory: h.state, root: h.watched.standardizedFileURL.path)
        try await queue.enqueue(FileSnapshot(path: "ghost.jpg", size: 5, mtimeNanoseconds: 1, inode: 1))
        let run = try await h.startAgent()
        await run.waitUntil { try! await UploadQueue(readingStateIn: h.state).allFiles().isEmpty }
        #expect(try await UploadQueue(readingStateIn: h.state).allFiles().isEmpty)
        #expect(!run.events.all.contains { if case .failed = $0 { true } else { false } })
        #expect(await run.stop() == nil)
        #expect(h.creations == 0)
    }

    @Test func stateOfAnotherFolderIsRefused() async throws {
        let h = try AgentHarness()
        _ = try UploadQueue(stateDirectory: h.state, root: "/somewhere/else")
        await #expect(throws: AutoUploadError.stateBelongsToOtherFolder(state: h.state.path, existing: "/somewhere/else",
                                                                       given: h.watched.standardizedFileURL.path)) {
            _ = try await h.startAgent()
        }
    }
}

/// Runs blocking work on a dedicated thread, away from the cooperative pool whose stalls would distort its timing.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

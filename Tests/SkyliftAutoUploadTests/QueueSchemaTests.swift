import Foundation
import SkyliftFolderWatch
import Testing
@testable import SkyliftAutoUpload

/// The queue's schema versions (`PRAGMA user_version`) on real SQLite files.
@Suite struct QueueSchemaTests {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("aqs-\(UUID().uuidString)")
    var path: String { state.appendingPathComponent(UploadQueue.fileName).path }

    func version(_ queue: UploadQueue) async throws -> Int64? {
        try await queue.db.read { c in try c.query("PRAGMA user_version").first?.int("user_version") }
    }

    @Test func aNewQueueIsAtTheLatestVersionAndReopensUnchanged() async throws {
        defer { try? FileManager.default.removeItem(at: state) }
        let queue = try UploadQueue(stateDirectory: state, root: "/r")
        #expect(try await version(queue) == Int64(QueueSchema.version))
        try await queue.enqueue(FileSnapshot(path: "a", size: 1, mtimeNanoseconds: 2, inode: 3))
        let again = try UploadQueue(stateDirectory: state, root: "/r")
        #expect(try await version(again) == Int64(QueueSchema.version))
        #expect(try await again.allFiles().map(\.path) == ["a"])
    }

    /// A queue made by a later Skylift (a version this one does not know) is refused, not misread.
    @Test func aQueueFromANewerSkyliftIsRefused() throws {
        defer { try? FileManager.default.removeItem(at: state) }
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        _ = try SQLiteDatabase(path: path) { c in try c.execute("PRAGMA user_version = \(QueueSchema.version + 1)") }
        #expect {
            try UploadQueue(stateDirectory: state, root: "/r")
        } throws: { error in
            guard case let .stateNotUsable(_, reason)? = error as? AutoUploadError else { return false }
            return reason.contains("newer skylift")
        }
    }

    /// A queue made just before versions were kept (version 0, already in the latest shape) keeps its rows
    /// and is marked current without being rebuilt.
    @Test func anUnversionedQueueOfTheLatestShapeIsAdopted() async throws {
        defer { try? FileManager.default.removeItem(at: state) }
        let queue = try UploadQueue(stateDirectory: state, root: "/r")
        try await queue.enqueue(FileSnapshot(path: "kept", size: 5, mtimeNanoseconds: 6, inode: 7))
        try await queue.db.write { c in try c.execute("PRAGMA user_version = 0") }
        let reopened = try UploadQueue(stateDirectory: state, root: "/r")
        #expect(try await version(reopened) == Int64(QueueSchema.version))
        #expect(try await reopened.file("kept")?.size == 5)
        let claimed = try #require(try await reopened.claimNext())
        #expect(try await reopened.markWaiting(claimed.path, reason: "full", kept: 1, policy: .init()) > 0)
    }
}

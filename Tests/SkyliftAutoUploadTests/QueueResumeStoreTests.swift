import Foundation
import SkyliftFolderWatch
import TestProbes
import Testing
import SkyliftUploads
@testable import SkyliftAutoUpload

/// The watch queue's row as the engine's resume record, on a real SQLite file.
@Suite struct QueueResumeStoreTests {
    /// Made by the queue (or the test); one per test, removed after it.
    let scratch: TempFolder
    var state: URL { scratch.url }

    init() throws {
        scratch = try TempFolder("qr", create: false)
    }

    func record(token: String?, identity: String = "dev:1 ino:7", destination: String = "s3://b/clip.mov",
                completed: Bool = false, etag: String? = nil) -> ResumeRecord {
        ResumeRecord(source: "/w/clip.mov", identity: identity, destination: destination, protocolName: "s3", token: token,
                     length: 1000, confirmedOffset: 400, completed: completed, etag: etag)
    }

    @Test func theRowKeepsTheRecordAcrossAKilledProcessAndAMove() async throws {
        let snapshot = FileSnapshot(path: "clip.mov", size: 1000, mtimeNanoseconds: 5, inode: 7)
        do {
            let queue = try UploadQueue(stateDirectory: state, root: "/w")
            try await queue.enqueue(snapshot)
            _ = try await queue.claimNext()
            let resume = QueueResumeStore(queue: queue, snapshot: snapshot)
            #expect(await resume.load(source: "/w/clip.mov", destination: "s3://b/clip.mov") == nil)
            try await resume.save(record(token: "upload-1"))
            #expect(try await queue.file("clip.mov")?.uploadURL == "upload-1")
            // The process dies here.
        }
        let queue = try UploadQueue(stateDirectory: state, root: "/w")
        try await queue.recoverInterrupted()
        try await queue.move("clip.mov", to: "moved/clip.mov")
        _ = try #require(try await queue.claimNext())
        let resume = QueueResumeStore(queue: queue, snapshot: FileSnapshot(path: "moved/clip.mov", size: 1000, mtimeNanoseconds: 5, inode: 7))
        let loaded = try #require(await resume.load(source: "/w/moved/clip.mov", destination: "s3://b/clip.mov"))
        #expect(loaded.token == "upload-1" && loaded.identity == "dev:1 ino:7" && loaded.length == 1000 && !loaded.completed)
        // A record made for another destination is not this upload's.
        #expect(await resume.load(source: "/w/moved/clip.mov", destination: "s3://b/moved/clip.mov") == nil)

        try await resume.save(record(token: nil, completed: true, etag: "\"e\""))
        let done = try #require(await resume.load(source: "/w/moved/clip.mov", destination: "s3://b/clip.mov"))
        #expect(done.completed && done.etag == "\"e\"" && done.token == nil)
        await resume.remove(source: "/w/moved/clip.mov", destination: "s3://b/clip.mov")
        #expect(await resume.load(source: "/w/moved/clip.mov", destination: "s3://b/clip.mov") == nil)
        // Nothing else holds resume state: the queue database is the only file.
        #expect(!FileManager.default.fileExists(atPath: state.appendingPathComponent("uploads").path))
    }

    @Test func aRowThatIsNotUploadingHoldsNoRecord() async throws {
        let queue = try UploadQueue(stateDirectory: state, root: "/w")
        let snapshot = FileSnapshot(path: "a.jpg", size: 1000, mtimeNanoseconds: 5, inode: 7)
        try await queue.enqueue(snapshot)
        let resume = QueueResumeStore(queue: queue, snapshot: snapshot)
        try await resume.save(record(token: "t"))
        #expect(await resume.load(source: "/w/a.jpg", destination: "s3://b/clip.mov") == nil)
        #expect(try await queue.file("a.jpg")?.uploadURL == nil)
    }
}

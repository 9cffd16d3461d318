import Foundation
import TestProbes
import Testing
@testable import SkyliftUploads

@Suite struct ResumeFileStoreTests {
    @Test func savesReplacesAndRemoves() async throws {
        let scratch = try TempFolder("state"), dir = scratch.url
        let store = ResumeFileStore(directory: dir.appendingPathComponent("nested/state"))
        #expect(store.load(source: "/a", destination: "http://h/dav/a") == nil)
        var r = ResumeRecord(source: "/a", identity: "1:2:3:4", destination: "http://h/dav/a", protocolName: "tus",
                             token: "http://h/uploads/9", length: 10, confirmedOffset: 4)
        try await store.save(r)
        #expect(store.load(source: "/a", destination: "http://h/dav/a")?.confirmedOffset == 4)
        r.confirmedOffset = 8
        try await store.save(r)
        #expect(store.load(source: "/a", destination: "http://h/dav/a")?.confirmedOffset == 8)
        // No temporary files are left beside the record.
        let files = try FileManager.default.contentsOfDirectory(atPath: store.fileURL(source: "/a", destination: "http://h/dav/a").deletingLastPathComponent().path)
        #expect(files.count == 1 && files[0].hasSuffix(".json"))
        // Another destination is another record.
        #expect(store.load(source: "/a", destination: "http://h/dav/b") == nil)
        store.remove(source: "/a", destination: "http://h/dav/a")
        #expect(store.load(source: "/a", destination: "http://h/dav/a") == nil)
    }

    @Test func tornRecordIsIgnored() throws {
        let scratch = try TempFolder("state"), dir = scratch.url
        let store = ResumeFileStore(directory: dir)
        let url = store.fileURL(source: "/a", destination: "d")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{\"source\":\"/a\",".utf8).write(to: url)
        #expect(store.load(source: "/a", destination: "d") == nil)
    }

    @Test func unwritableStateNamesThePath() async throws {
        let scratch = try TempFolder("state"), dir = scratch.url
        let blocker = dir.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let store = ResumeFileStore(directory: blocker)
        let r = ResumeRecord(source: "/a", identity: "i", destination: "d", protocolName: "tus", token: nil, length: 1)
        await #expect { try await store.save(r) } throws: { error in
            guard case let .stateNotWritable(path, _) = error as? UploadError else { return false }
            return path.hasPrefix(blocker.path)
        }
    }

    @Test func defaultDirectoryFollowsXDG() {
        #expect(ResumeFileStore.defaultDirectory(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/home/u"]).path == "/x/state/skylift")
        #expect(ResumeFileStore.defaultDirectory(environment: ["HOME": "/home/u"]).path == "/home/u/.local/state/skylift")
        #expect(ResumeFileStore.defaultDirectory(environment: ["XDG_STATE_HOME": "relative", "HOME": "/home/u"]).path == "/home/u/.local/state/skylift")
    }
}

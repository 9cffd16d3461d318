import Foundation
import SkyliftHTTPServer
import SkyliftRemotes
import SkyliftCore
import Testing
@testable import SkyliftUploads

/// `Remote.move` and `copy` on the embedded cloud, reached as a tus remote with WebDAV beside it (what
/// discovery picks there) and as a plain WebDAV remote; and a tus endpoint without WebDAV, which cannot move.
@Suite struct RemoteMoveTests {
    func put(_ cloud: EmbeddedCloud, _ path: String, _ bytes: [UInt8]) throws {
        let url = cloud.root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    @Test(arguments: ["tus", "webdav"]) func filesAndFoldersMoveAndCopyOnTheServer(kind: String) async throws {
        let cloud = try EmbeddedCloud()
        let discovered = try await RemoteDiscovery(http: remoteHTTP(token: EmbeddedCloud.token)).discover(cloud.folder("media/"))
        let remote: any Remote = kind == "tus" ? discovered : try #require((discovered as? TusRemote)?.dav)
        #expect((discovered as? TusRemote)?.dav != nil)
        try put(cloud, "media/a.jpg", testBytes(1000, seed: 1))
        try put(cloud, "media/trip/day1/b.mov", testBytes(5000, seed: 2))
        try put(cloud, "media/trip/c.txt", testBytes(10, seed: 3))
        try put(cloud, "media/old/x.jpg", testBytes(7, seed: 4))

        // A file into a folder that does not exist yet; a folder onto a new name; one over an existing file.
        try await remote.move("a.jpg", to: "sorted/2026/a b.jpg")
        try await remote.move("trip", to: "trip 2026")
        try await remote.copy("trip 2026/c.txt", to: "old/x.jpg")
        try await remote.copy("trip 2026", to: "backup/trip")

        #expect(cloud.stored("media/a.jpg") == nil)
        #expect(cloud.stored("media/sorted/2026/a b.jpg") == testBytes(1000, seed: 1))
        #expect(!FileManager.default.fileExists(atPath: cloud.root.appendingPathComponent("media/trip").path))
        #expect(cloud.stored("media/trip 2026/day1/b.mov") == testBytes(5000, seed: 2))
        #expect(cloud.stored("media/old/x.jpg") == testBytes(10, seed: 3))
        #expect(cloud.stored("media/backup/trip/day1/b.mov") == testBytes(5000, seed: 2))
        #expect(cloud.stored("media/trip 2026/c.txt") == testBytes(10, seed: 3))

        await #expect { try await remote.move("nothing.jpg", to: "elsewhere.jpg") } throws: { error in
            (error as? RemoteError)?.status == 404
        }
    }

    @Test func aTusEndpointWithoutWebDAVCannotMove() async throws {
        let server = FaultyTusServer()
        let http = HTTPServer(configuration: .init(), handler: server)
        try http.start()
        defer { http.stop() }
        let remote = try await RemoteDiscovery(http: remoteHTTP()).discover(URL(string: "\(http.baseURL)/files/")!)
        #expect((remote as? TusRemote)?.dav == nil)
        await #expect { try await remote.move("a", to: "b") } throws: { error in
            guard case .unsupported = error as? RemoteError else { return false }
            return (error as? RemoteError)?.disposition == .fatal
        }
    }
}

import SkyliftDownloads
import Foundation
import SkyliftRemotes
import Synchronization
import Testing
import TestProbes
import TestPrograms

/// The download engine against a WebDAV server no one here wrote (WsgiDAV on cheroot): the folder is walked
/// with PROPFIND `Depth: 1`, files come back with their times, a large one in parallel ranges, and with no
/// digest served a second run skips on size and time while `verify` refuses.
@Suite(.serialized) struct ForeignServerDownloadTests {
    @Test func aWebDAVFolderComesBackAndASecondRunSkipsOnSizeAndTime() async throws {
        let peer = try PythonServer(script: PythonServer.wsgidav, python: TestPrograms.python("wsgidav", "cheroot"))
        let files = [("photos/a.jpg", 70_000), ("photos/2026/b.jpg", 120_000), ("photos/2026/deep/c.txt", 10), ("photos/clip.bin", 9 << 20)]
        let stamp = Date(timeIntervalSince1970: 1_700_000_000)
        for (index, (path, count)) in files.enumerated() {
            let url = peer.root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(testBytes(count, seed: UInt64(index + 1))).write(to: url)
            try FileManager.default.setAttributes([.modificationDate: stamp.addingTimeInterval(Double(index) * 3600)], ofItemAtPath: url.path)
        }
        let out = try TempFolder("download")
        let origin = WebDAVOrigin(url: URL(string: "http://127.0.0.1:\(peer.port)/photos/")!, http: remoteHTTP())
        let options = DownloadOptions(jobs: 2, parts: 3, retry: .immediate)
        let first = await Downloader(destination: out.url.path, options: options).run([origin]) { _, _ in }
        #expect(first.failed.isEmpty, "\(first.failed.map(\.error.description))")
        for (index, (path, count)) in files.enumerated() {
            let local = out.url.appendingPathComponent(String(path.dropFirst("photos/".count)))
            #expect(try Data(contentsOf: local) == Data(testBytes(count, seed: UInt64(index + 1))), "\(path)")
            let time = try FileManager.default.attributesOfItem(atPath: local.path)[.modificationDate] as? Date
            #expect(time == stamp.addingTimeInterval(Double(index) * 3600), "\(path)")
        }

        let events = Mutex<[String]>([])
        let second = await Downloader(destination: out.url.path, options: options).run([origin]) { _, event in
            if case let .skipped(reason) = event { events.withLock { $0.append(reason) } }
        }
        #expect(second.failed.isEmpty && events.withLock { $0 } == Array(repeating: "same size and time", count: 4))

        // The server's root as the source: the whole tree, folder names included.
        let whole = try TempFolder("download")
        let root = WebDAVOrigin(url: URL(string: "http://127.0.0.1:\(peer.port)/")!, http: remoteHTTP())
        let all = await Downloader(destination: whole.url.path, options: options).run([root]) { _, _ in }
        #expect(all.failed.isEmpty && all.done.map(\.path).sorted() == files.map(\.0).sorted(), "\(all.failed.map(\.error.description))")

        // No digest served: `verify` refuses rather than take the bytes on their length.
        let strict = await Downloader(destination: try TempFolder("download").url.path, options: DownloadOptions(verify: true, retry: .immediate)).run([origin]) { _, _ in }
        #expect(strict.failed.count == 4 && strict.failed.allSatisfy { $0.error.description.contains("no digest") })
    }
}

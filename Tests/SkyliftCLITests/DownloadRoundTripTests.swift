import Foundation
import Testing

/// The README's story: a folder backed up by `skylift watch` into the embedded cloud, lost, and brought back
/// by `skylift download` with its layout, contents and the cloud's file times, every file checked against
/// the SHA-256 the cloud recorded when it arrived.
@Suite(.serialized) struct DownloadRoundTripTests {
    @Test func aWatchedFolderComesBackAfterItIsLost() throws {
        let cloud = try CloudFixture()
        let pictures = cloud.dir.appendingPathComponent("Pictures")
        var contents: [String: Data] = [:]
        for (index, path) in ["top.jpg", "2026/march/a.jpg", "2026/b.heic"].enumerated() {
            let data = Data((0..<(40_000 + index * 1000)).map { UInt8(truncatingIfNeeded: $0 &* (index + 3)) })
            let url = pictures.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
            contents[path] = data
        }
        let watch = try WatchProcess([pictures.path, "--to", cloud.url + "backup/", "--token", cloud.token, "--settle", "0.2",
                                      "--state", cloud.dir.appendingPathComponent("watch-state").path, "--json"])
        var uploaded: Set<String> = []
        while uploaded != Set(contents.keys), let e = watch.await("uploaded", within: 60) { uploaded.insert(e["path"] as? String ?? "") }
        #expect(watch.stop() == 0)
        try #require(uploaded == Set(contents.keys), "watch uploaded \(uploaded)")

        try FileManager.default.removeItem(at: pictures)
        let run = try TransferProcess(["download", cloud.url + "backup/", pictures.path, "--token", cloud.token, "--json"])
        let (events, status) = run.finish()
        #expect(status == 0, "\(run.errorText)")
        #expect(events.filter { $0["event"] as? String == "done" && $0["verified"] as? String == "sha-256" }.count == contents.count, "\(events)")
        for (path, data) in contents {
            let restored = pictures.appendingPathComponent(path), stored = cloud.root.appendingPathComponent("backup/" + path)
            #expect(try Data(contentsOf: restored) == data, "\(path)")
            let times = try [restored, stored].map { try FileManager.default.attributesOfItem(atPath: $0.path)[.modificationDate] as? Date }
            #expect(times[0].map { Int($0.timeIntervalSince1970) } == times[1].map { Int($0.timeIntervalSince1970) }, "\(path)")
        }
    }
}

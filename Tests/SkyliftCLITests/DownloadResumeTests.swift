import Foundation
import Testing
import TestProbes

/// `skylift download` continuing in parallel ranges after a kill, and riding out a server restart (the retry
/// layer), against the embedded cloud through a relay that slows answers down.
@Suite(.serialized) struct DownloadResumeTests {
    let steps = DownloadProcessTests()

    @Test func aKilledDownloadInRangesContinuesEachRange() throws {
        let cloud = try CloudFixture()
        let data = try steps.put(cloud, "ranges.bin", in: "p/", bytes: 24 << 20)
        let (relay, base) = try steps.slowBase(cloud)
        let out = cloud.dir.appendingPathComponent("restore")
        let first = try steps.download(cloud, base + "p/", into: out, ["--parts", "3"])
        let record = out.appendingPathComponent(".ranges.bin.skylift-resume").path
        var recorded = false
        for _ in 0..<3000 where !recorded {
            recorded = FileManager.default.fileExists(atPath: record)
            if !recorded { usleep(10_000) }
        }
        usleep(300_000)
        first.kill9()
        relay.cut()
        try #require(recorded, "no resume record was written")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any]
        #expect((json?["ranges"] as? [Any])?.count == 3, "\(String(describing: json))")

        let second = try steps.download(cloud, base + "p/", into: out, ["--parts", "3"])
        let (events, status) = second.finish()
        #expect(status == 0, "\(second.errorText)")
        let done = try #require(events.first { $0["event"] as? String == "done" }, "\(steps.kinds(events))")
        #expect(done["verified"] as? String == "sha-256" && !steps.kinds(events).contains("restarted"))
        #expect(try Data(contentsOf: out.appendingPathComponent("ranges.bin")) == data)
        #expect(!FileManager.default.fileExists(atPath: record))
    }

    @Test func aServerRestartMidFileIsRetriedFromWhereTheBytesStopped() throws {
        let cloud = try CloudFixture()
        let data = try steps.put(cloud, "long.bin", in: "r/", bytes: 24 << 20)
        let (_, base) = try steps.slowBase(cloud)
        let out = cloud.dir.appendingPathComponent("restore")
        let run = try steps.download(cloud, base + "r/", into: out)
        try #require(waitForPartial(out.appendingPathComponent(".long.bin.skylift-part"), atLeast: 2 << 20))
        let listen = cloud.listen
        cloud.stop()
        try cloud.start(listen: listen)
        let (events, status) = run.finish()
        #expect(status == 0, "\(run.errorText)")
        #expect(steps.kinds(events).contains("retried"), "\(steps.kinds(events))")
        let done = try #require(events.first { $0["event"] as? String == "done" })
        #expect(int(done["fetched"]) == Int64(data.count) && done["verified"] as? String == "sha-256", "\(done)")
        #expect(try Data(contentsOf: out.appendingPathComponent("long.bin")) == data)
    }
}

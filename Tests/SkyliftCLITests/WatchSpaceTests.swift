import Foundation
import SkyliftCore
import Testing
import TestProbes

/// `skylift watch` against an embedded server on a full tmpfs: the file is paused as waiting for space (not sent
/// again every few seconds), `skylift status` shows it so, and it finishes from what the server kept once space
/// returns.
@Suite(.serialized, .enabled(if: Tmpfs.available, "mounting a tmpfs needs root"))
struct WatchSpaceTests {
    @Test func aFileTheServerHasNoSpaceForWaitsAndFinishesOnceSpaceReturns() async throws {
        let cloud = try WatchCloud(storeSize: "12m")
        let filler = cloud.stored("filler.bin")
        try Data(count: 6 << 20).write(to: filler)
        let file = cloud.dir.appendingPathComponent("clip.bin")
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        try random.readData(ofLength: 10 << 20).write(to: file)
        // The first pause is 5 s instead of a minute.
        let agent = try WatchProcess([cloud.dir.path, "--to", cloud.url, "--token", WatchCloud.token, "--state", cloud.state.path,
                                      "--json", "--settle", "0.2"],
                                     environment: ["PATH": "/usr/bin:/bin", "SKYLIFT_SPACE_BACKOFF": "5"])
        let waiting = try #require(agent.await("waiting_for_space", within: 120), "\(agent.errorText)")
        #expect(waiting["path"] as? String == "clip.bin" && int(waiting["size"]) == 10 << 20)
        let kept = int(waiting["kept"])
        #expect(kept >= 0 && kept % (4 << 20) == 0 && ((waiting["retry_in"] as? NSNumber)?.doubleValue ?? 0) > 0)

        // The row is waiting until its next try (5 s); a slow machine may catch it trying again (and refused
        // again, waiting once more), so status is read until it shows the wait.
        let shown = "waiting for space:\n    clip.bin  \(ByteCount.format(kept)) of 10.0 MiB kept on the server (retry in "
        var status = await runSkylift(["status", "--state", cloud.state.path])
        for _ in 0..<100 where !status.out.contains(shown) {
            try await Task.sleep(nanoseconds: 100_000_000)
            status = await runSkylift(["status", "--state", cloud.state.path])
        }
        #expect(status.out.contains("waiting 1") && status.out.contains(shown), "\(status.out)")

        try FileManager.default.removeItem(at: filler)
        if kept > 0 {
            #expect(agent.await("resumed", within: 120) { int($0["from"]) == kept } != nil)
        }
        #expect(agent.await("uploaded", within: 120) { $0["path"] as? String == "clip.bin" } != nil)
        #expect(agent.stop() == 0)
        #expect(FileManager.default.contentsEqual(atPath: file.path, andPath: cloud.stored("clip.bin").path))
    }
}

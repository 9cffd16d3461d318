import Foundation
import Testing

/// `skylift upload` to the embedded cloud sends a file in one tus PATCH (`block-checksum`) while the server keeps
/// it block by block: killed with SIGKILL twice mid-body and run again, it re-sends at most the block each kill
/// cut, counted in bytes the server was sent (a relay in front of it meters them).
@Suite(.serialized) struct TusStreamKillTests {
    static let block: Int64 = 4 << 20

    @Test func killedTwiceMidBodyResendsAtMostABlockPerKill() throws {
        let cloud = try CloudFixture()
        try cloud.slowDown()
        let relay = try #require(cloud.relay)
        let file = try cloud.source("long.bin", mib: 40)
        let total = Int64(40 << 20)
        for blocks in [2, 6] {
            let run = try cloud.upload(file, folder: "k/")
            try #require(cloud.waitForConfirmedPart(blocks: blocks), "the server never held \(blocks) blocks")
            run.kill9()
        }
        #expect(!FileManager.default.fileExists(atPath: cloud.root.appendingPathComponent("k/long.bin").path))

        let last = try cloud.upload(file, folder: "k/")
        let (events, status) = last.finish()
        #expect(status == 0, "\(last.errorText)")
        let resumed = try #require(events.first { $0["event"] as? String == "resumed" })
        #expect(int(resumed["from"]) >= 6 * Self.block && int(resumed["from"]) % Self.block == 0)
        #expect(FileManager.default.contentsEqual(atPath: file.path, andPath: cloud.root.appendingPathComponent("k/long.bin").path))
        // Everything the three runs sent, request heads included: the file, plus under one block per kill.
        let extra = relay.bytesSent - total
        #expect(extra >= 0 && extra < 2 * Self.block + (1 << 20), "\(extra) bytes sent beyond the file")
    }
}

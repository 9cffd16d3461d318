import Foundation
import TestProbes
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
            // What the killed run had written into the relay must not reach the server beside the next run's PATCH
            // (see UploadProcessTests.killedClientResumesFromTheServerOffset).
            relay.cut()
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

    /// Killed after its last block confirmation reached the server, which finished the upload, but before the
    /// answer came back (a relay withholds it): the next run finds the upload gone and the file in place with
    /// the source's size and SHA-256, and reports it done without sending it again. When the file there is not
    /// the source's, it starts over.
    @Test func killedBeforeHearingTheUploadFinishedSendsNothingAgain() throws {
        let cloud = try CloudFixture()
        let port = UInt16(URL(string: cloud.url)?.port ?? 0)
        let total = Int64(9 << 20)
        for (name, replaced) in [("done.bin", false), ("other.bin", true)] {
            let file = try cloud.source(name, mib: 9)
            let target = cloud.root.appendingPathComponent("d/" + name)
            let hold = try FlipRelay(upstream: port, holdAfter: "Upload-Block-Digests")
            cloud.relay = hold
            let first = try cloud.upload(file, folder: "d/")
            var landed = false
            for _ in 0 ..< 3000 where !landed {
                landed = hold.holding && FileManager.default.fileExists(atPath: target.path)
                if !landed { usleep(10_000) }
            }
            first.kill9()
            try #require(landed, "\(name): the server never finished the upload")
            if replaced { try Data(repeating: 7, count: Int(total)).write(to: target) }

            // The same URL as before (the resume record is kept by destination), now passing every answer.
            hold.release()
            let before = hold.bytesSent
            let again = try cloud.upload(file, folder: "d/")
            let (events, status) = again.finish()
            #expect(status == 0, "\(name): \(again.errorText)")
            let kinds = events.compactMap { $0["event"] as? String }
            let done = try #require(events.first { $0["event"] as? String == "done" }, "\(name): \(events)")
            if replaced {
                #expect(kinds.contains("restarted") && int(done["sent"]) == total, "\(name): \(kinds)")
            } else {
                let resumed = try #require(events.first { $0["event"] as? String == "resumed" }, "\(kinds)")
                #expect(int(resumed["from"]) == total && int(done["sent"]) == 0)
                #expect(!kinds.contains("restarted") && !kinds.contains("skipped"), "\(kinds)")
                #expect(hold.bytesSent - before < 16 << 10, "\(hold.bytesSent - before) bytes sent")
            }
            #expect(FileManager.default.contentsEqual(atPath: file.path, andPath: target.path), "\(name)")
        }
    }
}

import Foundation
import TestProbes
import Testing

/// `skylift upload --parts N` to a real `skylift serve` (which offers tus `concatenation`): the file goes as N
/// partial uploads side by side and one final upload joins them; without `--parts` it stays one stream. The
/// server's access log counts the creations (POSTs), a relay in front of it the bytes it was sent.
@Suite(.serialized) struct TusConcatUploadTests {
    static let block: Int64 = 4 << 20

    @Test func partsGoAsPartialUploadsAndDefaultStaysOneStream() throws {
        let cloud = try CloudFixture(accessLog: true)
        let file = try cloud.source("four.bin", mib: 6)
        let run = try cloud.upload(file, folder: "p/", extra: ["--parts", "4"])
        let (events, status) = run.finish()
        #expect(status == 0, "\(run.errorText)")
        #expect(events.last?["event"] as? String == "done", "\(events)")
        #expect(FileManager.default.contentsEqual(atPath: file.path, andPath: cloud.root.appendingPathComponent("p/four.bin").path))
        // Four partial uploads (6 MiB in parts of 1.5 MiB), then the final one.
        #expect(cloud.requests("POST").count == 5, "\(cloud.requests("POST"))")
        #expect(cloud.requests("PATCH").count >= 4)
        // Nothing left behind: the join consumed the partial uploads.
        let uploads = cloud.root.appendingPathComponent(".skylift-uploads")
        let infos = try FileManager.default.contentsOfDirectory(atPath: uploads.path).filter { $0.hasSuffix(".info") }
        let partials = try infos.filter { try String(contentsOf: uploads.appendingPathComponent($0), encoding: .utf8).contains("\"partial\":true") }
        #expect(partials.isEmpty, "\(partials)")

        let plain = try cloud.source("plain.bin", mib: 6)
        let posts = cloud.requests("POST").count
        let one = try cloud.upload(plain, folder: "p/")
        let (_, oneStatus) = one.finish()
        #expect(oneStatus == 0, "\(one.errorText)")
        #expect(cloud.requests("POST").count == posts + 1, "default: one upload, no partial uploads")
        #expect(FileManager.default.contentsEqual(atPath: plain.path, andPath: cloud.root.appendingPathComponent("p/plain.bin").path))
    }

    /// Killed with SIGKILL while all four partial uploads are in flight, the next run continues each one from
    /// the server's offset: no partial upload is created again, and what the two runs sent beyond the file is at
    /// most the block each partial upload had in progress.
    @Test func killedMidPartsResumesEveryPartialUpload() throws {
        let cloud = try CloudFixture(accessLog: true)
        try cloud.slowDown()
        let relay = try #require(cloud.relay)
        let file = try cloud.source("long.bin", mib: 40)
        let total = Int64(40 << 20)
        let first = try cloud.upload(file, folder: "k/", extra: ["--parts", "4"])
        try #require(cloud.waitForConfirmedPart(blocks: 1), "the server never held a block")
        first.kill9()
        // As in TusStreamKillTests: the killed run's bytes still in the relay must not arrive beside the next run's.
        relay.cut()
        #expect(!FileManager.default.fileExists(atPath: cloud.root.appendingPathComponent("k/long.bin").path))
        let posts = cloud.requests("POST").count
        #expect(posts == 4, "\(cloud.requests("POST"))")

        let last = try cloud.upload(file, folder: "k/", extra: ["--parts", "4"])
        let (events, status) = last.finish()
        #expect(status == 0, "\(last.errorText)")
        let resumed = try #require(events.first { $0["event"] as? String == "resumed" }, "\(events)")
        #expect(int(resumed["from"]) >= Self.block)
        #expect(!events.contains { $0["event"] as? String == "restarted" })
        #expect(FileManager.default.contentsEqual(atPath: file.path, andPath: cloud.root.appendingPathComponent("k/long.bin").path))
        // The second run created only the final upload.
        #expect(cloud.requests("POST").count == posts + 1, "\(cloud.requests("POST"))")
        let extra = relay.bytesSent - total
        #expect(extra >= 0 && extra < 4 * Self.block + (1 << 20), "\(extra) bytes sent beyond the file")
    }

    /// The final upload's creation reached the server, which joined the file, but its answer never came back
    /// (a relay withholds it) and the client was killed: the next run finds the partial uploads gone and the file
    /// in place with the source's size and SHA-256, and sends nothing again.
    @Test func killedBeforeHearingTheFinalUploadSendsNothingAgain() throws {
        let cloud = try CloudFixture(accessLog: true)
        let port = UInt16(URL(string: cloud.url)?.port ?? 0)
        let total = Int64(6 << 20)
        let file = try cloud.source("joined.bin", mib: 6)
        let target = cloud.root.appendingPathComponent("j/joined.bin")
        let hold = try FlipRelay(upstream: port, holdAfter: "Upload-Concat: final")
        cloud.relay = hold
        let first = try cloud.upload(file, folder: "j/", extra: ["--parts", "3"])
        var landed = false
        for _ in 0 ..< 3000 where !landed {
            landed = hold.holding && FileManager.default.fileExists(atPath: target.path)
            if !landed { usleep(10_000) }
        }
        first.kill9()
        try #require(landed, "the server never joined the file")
        hold.release()
        let before = hold.bytesSent
        // The final creation's log line is written once its answer is sent, after the join itself: wait for the
        // three partial creations and the final one.
        for _ in 0 ..< 500 where cloud.requests("POST").count < 4 { usleep(10_000) }
        let posts = cloud.requests("POST").count
        let again = try cloud.upload(file, folder: "j/", extra: ["--parts", "3"])
        let (events, status) = again.finish()
        #expect(status == 0, "\(again.errorText)")
        let kinds = events.compactMap { $0["event"] as? String }
        let done = try #require(events.first { $0["event"] as? String == "done" }, "\(events)")
        let resumed = try #require(events.first { $0["event"] as? String == "resumed" }, "\(kinds)")
        #expect(int(resumed["from"]) == total && int(done["sent"]) == 0)
        #expect(!kinds.contains("restarted") && !kinds.contains("skipped"), "\(kinds)")
        #expect(hold.bytesSent - before < 16 << 10, "\(hold.bytesSent - before) bytes sent")
        #expect(cloud.requests("POST").count == posts)
        #expect(FileManager.default.contentsEqual(atPath: file.path, andPath: target.path))
    }
}

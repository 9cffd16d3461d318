import Foundation
import SkyliftHTTPClient
import SkyliftRemotes
import Testing
import TestProbes

/// `skylift download` of an S3 prefix (ListObjectsV2, signed GETs pinned with If-Match) against moto with
/// signatures checked and a one-node Ceph RGW.
@Suite(.serialized) struct DownloadS3Tests {
    /// A scratch folder (removed by the caller), the service for `peer` and a new bucket. moto's signature check
    /// refuses correct signatures of query values holding `/` (a listing prefix), so moto runs lenient here; RGW
    /// checks every signature.
    func setUp(_ peer: S3Peer) async throws -> (dir: URL, s3: S3Endpoint, bucket: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-s3dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let s3 = peer == .moto ? try S3Endpoint.lenient.get() : try S3Endpoint.of(peer)
        return (dir, s3, try await s3.makeBucket())
    }

    @Test(arguments: S3Peer.allCases) func aPrefixComesBackAndASecondRunFetchesNothing(peer: S3Peer) async throws {
        let (dir, s3, bucket) = try await setUp(peer)
        defer { try? FileManager.default.removeItem(at: dir) }
        var objects: [String: [UInt8]] = [:]
        for (key, count) in [("a.jpg", 100_000), ("2026/b.jpg", 200_000)] {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ key.count) }
            try await s3.client().putObject(bucket: bucket, key: "cam/" + key, body: .bytes(bytes))
            objects[key] = bytes
        }
        // A multipart object (its ETag is no MD5 of the bytes) of 11 MiB, read back in three ranges.
        let big = try #require(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: 11 << 20)
        try big.write(to: dir.appendingPathComponent("clip.bin"))
        let up = try TransferProcess(["upload", dir.appendingPathComponent("clip.bin").path, "--to", "s3://\(bucket)/cam/video/", "--part-size", "5M",
                                      "--s3-addressing", "path", "--state", dir.appendingPathComponent("state").path], environment: s3.environment(home: dir))
        try #require(up.finish().1 == 0, "\(up.errorText)")
        objects["video/clip.bin"] = Array(big)

        let out = dir.appendingPathComponent("restore")
        let arguments = ["download", "s3://\(bucket)/cam/", out.path, "--s3-addressing", "path", "--parts", "3", "--json"]
        let run = try TransferProcess(arguments, environment: s3.environment(home: dir))
        let (events, status) = run.finish()
        #expect(status == 0, "\(run.errorText) \(events.filter { $0["event"] as? String == "failed" })")
        for (key, bytes) in objects {
            #expect(try Data(contentsOf: out.appendingPathComponent(key)) == Data(bytes), "\(key)")
        }
        let verified = events.filter { $0["event"] as? String == "done" }.compactMap { $0["verified"] as? String }
        #expect(verified.filter { $0 == "md5" }.count >= 2, "\(events)")

        let again = try TransferProcess(arguments, environment: s3.environment(home: dir))
        let (second, status2) = again.finish()
        #expect(status2 == 0, "\(again.errorText)")
        let kinds = second.compactMap { $0["event"] as? String }
        #expect(kinds.filter { $0 == "skipped" }.count == 3 && !kinds.contains("done"), "\(kinds)")
    }

    /// Killed mid-object (signed GETs through a relay that slows answers down), the same command continues with
    /// a ranged GET pinned by If-Match to the ETag, and the bytes match the object's MD5 (its single-PUT ETag).
    @Test(arguments: S3Peer.allCases) func aKilledDownloadContinuesPinnedToTheETag(peer: S3Peer) async throws {
        let (dir, s3, bucket) = try await setUp(peer)
        defer { try? FileManager.default.removeItem(at: dir) }
        let bytes = try #require(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: 24 << 20)
        try await s3.client().putObject(bucket: bucket, key: "raw/long.bin", body: .bytes(Array(bytes)))
        let relay = try FlipRelay(upstream: UInt16(s3.endpoint.port ?? 0), answerPause: 4000)
        let out = dir.appendingPathComponent("restore")
        let arguments = ["download", "s3://\(bucket)/raw/long.bin", out.path, "--s3-endpoint", "http://127.0.0.1:\(relay.port)",
                         "--s3-addressing", "path", "--json"]
        let first = try TransferProcess(arguments, environment: s3.environment(home: dir))
        let reached = waitForPartial(out.appendingPathComponent(".long.bin.skylift-part"), atLeast: 4 << 20)
        first.kill9()
        relay.cut()
        try #require(reached, "the partial file never reached 4 MiB")

        let second = try TransferProcess(arguments, environment: s3.environment(home: dir))
        let (events, status) = second.finish()
        #expect(status == 0, "\(second.errorText) \(events)")
        let from = int(try #require(events.first { $0["event"] as? String == "resumed" }, "\(events)")["from"])
        let done = try #require(events.first { $0["event"] as? String == "done" })
        #expect(int(done["fetched"]) == Int64(bytes.count) - from && done["verified"] as? String == "md5", "\(done)")
        #expect(try Data(contentsOf: out.appendingPathComponent("long.bin")) == bytes)
    }
}

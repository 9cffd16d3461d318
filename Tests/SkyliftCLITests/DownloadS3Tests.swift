import Foundation
import HTTPClient
import Remotes
import Testing
import TestProbes

/// `skylift download` of an S3 prefix (ListObjectsV2, signed GETs pinned with If-Match) against moto with
/// signatures checked and a one-node Ceph RGW.
@Suite(.serialized) struct DownloadS3Tests {
    @Test(arguments: S3Peer.allCases) func aPrefixComesBackAndASecondRunFetchesNothing(peer: S3Peer) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-s3dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // moto's signature check refuses correct signatures of query values holding `/` (a listing prefix), so
        // moto runs lenient here; RGW checks every signature.
        let s3 = peer == .moto ? try S3Endpoint.lenient.get() : try S3Endpoint.of(peer)
        let bucket = try await s3.makeBucket()
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
}

import Foundation
import SkyliftHashing
import SkyliftS3
import Testing
import TestProbes

/// `skylift scrub --root s3://…` and `skylift status --root s3://…` on a store kept in a bucket, against moto and
/// a one-node Ceph RGW: objects without a record get one, rot is found, and the report is kept in the bucket.
@Suite(.serialized) struct ScrubS3Tests {
    @Test(arguments: S3Peer.allCases) func scrubRecordsThenFindsRotAndStatusShowsIt(peer: S3Peer) async throws {
        let scratch = try TempFolder("scrub-s3"), home = scratch.url
        let s3 = peer == .moto ? try S3Endpoint.lenient.get() : try S3Endpoint.of(peer)
        let bucket = try await s3.makeBucket()
        let client = s3.client()
        let a = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }, b = Array("a holiday note".utf8)
        _ = try await client.putObject(bucket: bucket, key: "cloud/a.bin", body: .bytes(a), sha256: nil, contentType: "video/mp4",
                                       metadata: ["camera": "x100"], condition: .always)
        _ = try await client.putObject(bucket: bucket, key: "cloud/notes/b.txt", body: .bytes(b), sha256: nil, contentType: nil,
                                       metadata: [:], condition: .always)
        _ = try await client.putObject(bucket: bucket, key: "cloud/empty/", body: .bytes([]), sha256: nil, contentType: nil,
                                       metadata: [:], condition: .always)
        _ = try await client.putObject(bucket: bucket, key: "outside.bin", body: .bytes([1, 2, 3]), sha256: nil, contentType: nil,
                                       metadata: [:], condition: .always)
        let root = "s3://\(bucket)/cloud/"
        func skylift(_ arguments: [String]) throws -> ([[String: Any]], Int32, String) {
            let run = try TransferProcess(arguments + ["--root", root, "--s3-addressing", "path", "--json"], environment: s3.environment(home: home))
            let (objects, status) = run.finish()
            return (objects, status, run.errorText)
        }

        let (first, status1, errors1) = try skylift(["scrub"])
        #expect(status1 == 0, "\(errors1)")
        let report1 = try #require(first.first)
        #expect(report1["files"] as? Int == 2 && report1["recorded"] as? Int == 2 && report1["matched"] as? Int == 0, "\(report1)")
        #expect(report1["root"] as? String == root)
        // Recorded in the object's metadata, the rest of it kept.
        let head = try await client.headObjectMetadata(bucket: bucket, key: "cloud/a.bin")
        #expect(head.metadata["skylift-sha256"] == Digest.hash(.sha256, a).hexString && head.metadata["camera"] == "x100")
        #expect(head.info.contentType == "video/mp4")

        // Rot: new bytes under the old record.
        var rotten = a
        rotten[123_456] ^= 0x40
        _ = try await client.putObject(bucket: bucket, key: "cloud/a.bin", body: .bytes(rotten), sha256: nil, contentType: "video/mp4",
                                       metadata: head.metadata, condition: .always)
        let (second, status2, _) = try skylift(["scrub", "--no-record"])
        #expect(status2 == 1)
        let report2 = try #require(second.first)
        #expect(report2["matched"] as? Int == 1 && report2["recorded"] as? Int == 0, "\(report2)")
        let findings = try #require(report2["findings"] as? [[String: Any]])
        #expect(findings.count == 1 && findings.first?["path"] as? String == "a.bin" && findings.first?["kind"] as? String == "mismatch")

        let (shown, status3, errors3) = try skylift(["status"])
        #expect(status3 == 0, "\(errors3)")
        let last = try #require(shown.last?["last_scrub"] as? [String: Any], "\(shown)")
        #expect(shown.last?["store"] as? String == root && last["matched"] as? Int == 1)
        #expect((last["findings"] as? [[String: Any]])?.first?["kind"] as? String == "mismatch")
    }

    @Test func aStoreThatIsNotThereIsAClearError() throws {
        let scratch = try TempFolder("scrub-s3-bad"), home = scratch.url
        let s3 = try S3Endpoint.lenient.get()
        let run = try TransferProcess(["scrub", "--root", "s3://no-such-bucket-\(UUID().uuidString.prefix(8).lowercased())/x/",
                                       "--s3-addressing", "path"], environment: s3.environment(home: home))
        let (_, status) = run.finish()
        #expect(status != 0)
        #expect(run.errorText.contains("no-such-bucket"), "\(run.errorText)")
        let bad = try TransferProcess(["scrub", "--root", "s3://Bad_Bucket/"], environment: s3.environment(home: home))
        let (_, badStatus) = bad.finish()
        #expect(badStatus == 2 && bad.errorText.contains("--root"), "\(bad.errorText)")
    }
}

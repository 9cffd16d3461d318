import Foundation
import SkyliftRemotes
import TestProbes
import Testing
@testable import SkyliftUploads

/// Verification against the digest `skylift serve` records while a PUT streams in, by `--verify` and by the
/// check `watch` makes: confirmed without reading the object back (no GET), also after a damaged body.
@Suite struct ServedDigestVerifyTests {
    func upload(through relay: FlippingRelay, _ cloud: EmbeddedCloud, _ dir: TempFolder, options: UploadOptions) async throws -> Result<UploadResult, any Error> {
        try FileManager.default.createDirectory(at: cloud.root.appendingPathComponent("in"), withIntermediateDirectories: true)
        let remote = WebDAVRemote(folderURL: URL(string: "http://127.0.0.1:\(relay.port)/dav/in/")!, http: remoteHTTP(token: EmbeddedCloud.token))
        let uploader = Uploader(remote: remote, store: ResumeFileStore(directory: dir.url.appendingPathComponent("state")), options: options)
        let file = try dir.file("clip.bin", count: 200_000, seed: 3)
        return await runCollecting(uploader.start(try await BlobUploadSource.file(file.path), as: "clip.bin")).0
    }

    // Since WebDAV PUTs carry `Content-Digest`, the server refuses the flipped body itself (400) and the engine
    // sends it again; the check against the served digest then confirms the stored object with a HEAD, no GET.
    @Test(arguments: ["verify", "served digest only"])
    func aBitFlippedInTransitIsRefusedAndTheResentCopyConfirmedWithoutReadingBack(mode: String) async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        let relay = try FlippingRelay(to: cloud.port, flipAt: 150_000)
        var options = fastOptions(partLength: 1 << 20, verify: mode == "verify")
        options.checkServedDigest = mode != "verify"
        let result = try await upload(through: relay, cloud, dir, options: options)
        let requests = relay.stop()
        let report = try result.get()
        #expect(report.verified, "\(report)")
        #expect(requests.filter { $0.hasPrefix("PUT /dav/in/") }.count >= 2, "\(requests)")
        #expect(requests.contains { $0.hasPrefix("HEAD /dav/in/clip.bin ") }, "\(requests)")
        #expect(!requests.contains { $0.hasPrefix("GET ") }, "\(requests)")
        #expect(cloud.stored("in/clip.bin") == testBytes(200_000, seed: 3))
    }

    @Test func withoutVerificationTheFlipIsStillRefusedByContentDigest() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        let relay = try FlippingRelay(to: cloud.port, flipAt: 150_000)
        let result = try await upload(through: relay, cloud, dir, options: fastOptions(partLength: 1 << 20))
        let requests = relay.stop()
        #expect((try? result.get())?.verified == false)
        #expect(requests.filter { $0.hasPrefix("PUT /dav/in/") }.count >= 2, "\(requests)")
        #expect(cloud.stored("in/clip.bin") == testBytes(200_000, seed: 3))
    }
}

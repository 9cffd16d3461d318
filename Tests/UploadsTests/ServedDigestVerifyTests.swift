import Foundation
import Remotes
import Testing
@testable import Uploads

/// Verification against the digest `skylift serve` records while a PUT streams in: a bit flipped on the way
/// is caught without reading the object back (no GET), by `--verify` and by the check `watch` makes.
@Suite struct ServedDigestVerifyTests {
    func upload(through relay: FlippingRelay, _ cloud: EmbeddedCloud, _ dir: TempDir, options: UploadOptions) async throws -> Result<UploadResult, any Error> {
        try FileManager.default.createDirectory(at: cloud.root.appendingPathComponent("in"), withIntermediateDirectories: true)
        let remote = WebDAVRemote(folderURL: URL(string: "http://127.0.0.1:\(relay.port)/dav/in/")!, http: remoteHTTP(token: EmbeddedCloud.token))
        let uploader = Uploader(remote: remote, store: ResumeStore(directory: dir.url.appendingPathComponent("state")), options: options)
        let file = try dir.file("clip.bin", count: 200_000, seed: 3)
        return await runCollecting(uploader.start(try await BlobUploadSource.file(file.path), as: "clip.bin")).0
    }

    @Test(arguments: ["verify", "served digest only"])
    func aBitFlippedInTransitIsCaughtWithoutReadingBack(mode: String) async throws {
        let cloud = try EmbeddedCloud(), dir = try TempDir()
        let relay = try FlippingRelay(to: cloud.port, flipAt: 150_000)
        var options = fastOptions(partLength: 1 << 20, verify: mode == "verify")
        options.checkServedDigest = mode != "verify"
        let result = try await upload(through: relay, cloud, dir, options: options)
        let requests = relay.stop()
        guard case let .failure(error) = result, case UploadError.verifyFailed = error else {
            Issue.record("the flipped upload was not caught: \(result)")
            return
        }
        // PUT to a part name, then MOVE into place: the record travels with the rename.
        #expect(requests.contains { $0.hasPrefix("PUT /dav/in/") } && requests.contains { $0.hasPrefix("MOVE /dav/in/") }, "\(requests)")
        #expect(requests.contains { $0.hasPrefix("HEAD /dav/in/clip.bin ") }, "\(requests)")
        #expect(!requests.contains { $0.hasPrefix("GET ") }, "\(requests)")
        // The server holds the flipped bytes, and its record is of exactly those.
        let stored = try #require(cloud.stored("in/clip.bin"))
        #expect(stored != testBytes(200_000, seed: 3) && stored.count == 200_000)
    }

    @Test func withoutVerificationTheFlipGoesUnnoticed() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempDir()
        let relay = try FlippingRelay(to: cloud.port, flipAt: 150_000)
        let result = try await upload(through: relay, cloud, dir, options: fastOptions(partLength: 1 << 20))
        _ = relay.stop()
        #expect((try? result.get())?.verified == false)
        #expect(cloud.stored("in/clip.bin") != testBytes(200_000, seed: 3))
    }
}

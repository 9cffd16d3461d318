import Foundation
import SkyliftHashing
import SkyliftRemotes
import SkyliftCore
import TestProbes
import Testing
@testable import SkyliftUploads

/// A relay between client and embedded server flips one bit of the request stream: the upload must notice,
/// send again only the damaged span, and leave the file byte-equal on the server.
@Suite(.serialized) struct WireDamageTests {
    static let block: Int64 = 4 << 20

    func upload(through relay: FlipRelay, folder: String, file: URL, dir: TempFolder, webDAV: Bool = false,
                retry: RetryPolicy = .immediate) async throws -> UploadResult {
        let url = URL(string: "http://127.0.0.1:\(relay.port)/dav/\(folder)")!
        let http = remoteHTTP(token: EmbeddedCloud.token)
        let remote: any Remote = webDAV ? WebDAVRemote(folderURL: url, http: http) : try await RemoteDiscovery(http: http).discover(url)
        let store = ResumeFileStore(directory: dir.url.appendingPathComponent("state"))
        // Default settings but immediate retries.
        let up = Uploader(remote: remote, store: store, options: UploadOptions(retry: retry))
        return try await up.start(try await BlobUploadSource.file(file.path), as: file.lastPathComponent).result()
    }

    @Test func tusResendsOnlyTheDamagedBlock() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        let length = 10 << 20 + 4321
        let file = try dir.file("clip.bin", count: length, seed: 9)
        let relay = try FlipRelay(upstream: cloud.port, flipAt: 6 << 20)
        defer { relay.stop() }
        let done = try await upload(through: relay, folder: "wire/", file: file, dir: dir)
        #expect(relay.flipped)
        #expect(done.length == Int64(length))
        #expect(cloud.stored("wire/clip.bin") == testBytes(length, seed: 9))
        // The server received the file once, the damaged 4 MiB block once more, and request heads.
        let extra = relay.bytesSent - Int64(length)
        #expect(extra >= Self.block && extra < Self.block + (64 << 10), "\(extra) bytes beyond the file")
        // The server's digest record is of the repaired bytes, not of those its running digest saw first.
        let served = try await WebDAVRemote(folderURL: cloud.folder("wire/"), http: remoteHTTP(token: EmbeddedCloud.token)).stat("clip.bin")
        #expect(served?.sha256 == Digest.hash(.sha256, testBytes(length, seed: 9)))
    }

    /// A round of bad blocks is an attempt under the engine's one `RetryPolicy`, not a loop of the tus client's
    /// own: with one attempt allowed the damaged upload stops there; the next run repairs the block it left.
    @Test func badBlockRoundsCountAgainstTheRetryPolicy() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        let length = 9 << 20
        let file = try dir.file("once.bin", count: length, seed: 4)
        let relay = try FlipRelay(upstream: cloud.port, flipAt: 5 << 20)
        defer { relay.stop() }
        let single = RetryPolicy(maxAttempts: 1, baseDelay: 0.001, maxDelay: 0.01)
        do {
            _ = try await upload(through: relay, folder: "wire/", file: file, dir: dir, retry: single)
            Issue.record("a damaged block was repaired without a retry allowed")
        } catch let UploadError.retriesExhausted(_, attempts, last) {
            #expect(attempts == 1 && last.disposition == .resendPart, "\(last)")
        }
        #expect(relay.flipped && cloud.stored("wire/once.bin") == nil)
        let before = relay.bytesSent
        let done = try await upload(through: relay, folder: "wire/", file: file, dir: dir)
        #expect(done.length == Int64(length) && cloud.stored("wire/once.bin") == testBytes(length, seed: 4))
        let again = relay.bytesSent - before
        #expect(again >= Self.block && again < Self.block + (64 << 10), "\(again) bytes sent by the second run")
    }

    @Test func webDAVPutWithADamagedByteIsRefusedAndSentAgain() async throws {
        let cloud = try EmbeddedCloud(), dir = try TempFolder("uploads")
        let length = 3 << 20 + 99
        let file = try dir.file("doc.bin", count: length, seed: 3)
        let relay = try FlipRelay(upstream: cloud.port, flipAt: 1 << 20)
        defer { relay.stop() }
        try FileManager.default.createDirectory(at: cloud.root.appendingPathComponent("wire"), withIntermediateDirectories: true)
        let done = try await upload(through: relay, folder: "wire/", file: file, dir: dir, webDAV: true)
        #expect(relay.flipped)
        #expect(done.length == Int64(length))
        #expect(cloud.stored("wire/doc.bin") == testBytes(length, seed: 3))
        // A PUT is one span: the damaged one was refused (Content-Digest) and sent once more, nothing else.
        let extra = relay.bytesSent - Int64(length)
        #expect(extra >= Int64(length) && extra < Int64(length) + (64 << 10), "\(extra) bytes beyond the file")
    }
}

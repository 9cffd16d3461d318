import Foundation
import TestProbes
import Testing

/// `skylift watch` against `skylift serve`, both the built binary: every upload is checked against the digest
/// the server recorded (a HEAD, never a GET of the body), and a stored copy whose recorded digest differs from
/// the source is caught, reported and sent again.
@Suite(.serialized) struct WatchServedDigestTests {
    typealias Cloud = IntegrityProcessTests.LoggedCloud

    static func bytes(_ count: Int, seed: Int) -> Data {
        Data((0 ..< count).map { UInt8(truncatingIfNeeded: ($0 &* 31) ^ ($0 >> 11) &+ seed) })
    }

    static func watch(_ cloud: Cloud, _ dir: URL, to url: String? = nil) throws -> WatchProcess {
        try WatchProcess([dir.path, "--to", url ?? cloud.url, "--token", Cloud.token, "--state", cloud.dir.appendingPathComponent("state").path,
                          "--json", "--settle", "0.2"])
    }

    /// The tus uploads in progress on the server (its data files), once one of them holds a checked block.
    static func dataFileHoldingABlock(_ root: URL) -> URL? {
        let uploads = root.appendingPathComponent(".skylift-uploads")
        for _ in 0 ..< 30_000 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? []
            for name in names where name.hasSuffix(".blocks") {
                let blocks = uploads.appendingPathComponent(name)
                if ((try? FileManager.default.attributesOfItem(atPath: blocks.path))?[.size] as? Int ?? 0) >= 4 {
                    return uploads.appendingPathComponent(String(name.dropLast(".blocks".count)) + ".data")
                }
            }
            usleep(1000)
        }
        return nil
    }

    @Test func uploadsAreConfirmedByTheServedDigestWithNoGet() throws {
        let cloud = try Cloud()
        let dir = cloud.dir.appendingPathComponent("watched")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Self.bytes(3_000_000, seed: 1).write(to: dir.appendingPathComponent("clip.bin"))
        let watch = try Self.watch(cloud, dir)
        let uploaded = watch.await("uploaded") { $0["path"] as? String == "clip.bin" }
        #expect(watch.stop() == 0)
        #expect(uploaded != nil, Comment(rawValue: watch.errorText))
        let log = cloud.stop()
        // The check after the upload asked for the digest (HEAD), never for the body (GET).
        #expect(log.contains { $0.hasPrefix("HEAD /dav/clip.bin ") }, Comment(rawValue: log.joined(separator: "\n")))
        #expect(!log.contains { $0.hasPrefix("GET ") }, Comment(rawValue: log.joined(separator: "\n")))
        #expect(FileManager.default.contentsEqual(atPath: dir.appendingPathComponent("clip.bin").path,
                                                  andPath: cloud.root.appendingPathComponent("clip.bin").path))
    }

    // The server computes its digest record as a tus upload's bytes arrive, and reads the data file again at
    // completion only when that running digest was lost: here the watch process is killed mid-body after a byte
    // the server already holds was flipped on disk. The watch talks to the server through a relay that slows the
    // body to ~4 MiB/s, so the kill lands inside the upload however loaded the machine is (racing a fast upload
    // with SIGSTOP missed it under load), and the relay then cuts the connection, so what the killed process had
    // already written does not arrive after it. The restarted watch finishes the upload, the server's record then
    // covers the flipped byte, the served digest differs from the source, and watch must say so and send again.
    @Test func aServedDigestThatDiffersFromTheSourceIsCaughtAndTheFileSentAgain() throws {
        let cloud = try Cloud()
        let port = try #require(cloud.url.split(separator: ":").last?.split(separator: "/").first.flatMap { UInt16($0) })
        let relay = try FlipRelay(upstream: port, pause: 16_000)
        defer { relay.stop() }
        let viaRelay = "http://127.0.0.1:\(relay.port)/dav/"
        let dir = cloud.dir.appendingPathComponent("watched")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let first = try Self.watch(cloud, dir, to: viaRelay)
        _ = first.await("scanned")
        let name = "big.bin", size = 12 << 20
        try Self.bytes(size, seed: 1).write(to: dir.appendingPathComponent(name))
        let data = try #require(Self.dataFileHoldingABlock(cloud.root))
        try IntegrityProcessTests.flipByteKeepingTimes(data, at: 1000)
        _ = first.stop(SIGKILL)
        // The killed watch may have written the whole body into loopback buffers already; cut it here so the
        // server's body really ends early (else it completes, and its running digest of the unflipped bytes
        // stands: the hang a fresh-clone CI run hit).
        relay.cut()
        try #require(FileManager.default.fileExists(atPath: data.path), "the upload finished before the watch was killed")
        try #require(!FileManager.default.fileExists(atPath: cloud.root.appendingPathComponent(name).path))
        let watch = try Self.watch(cloud, dir, to: viaRelay)
        defer { _ = watch.stop() }
        let failed = watch.await("failed") { $0["path"] as? String == name }
        #expect((failed?["reason"] as? String)?.contains("differs from the source") == true, "\(failed ?? [:])")
        // Sent again after the retry delay; this copy is whole, and its served digest confirms it.
        #expect(watch.await("uploaded") { $0["path"] as? String == name } != nil, Comment(rawValue: watch.errorText))
        #expect(FileManager.default.contentsEqual(atPath: dir.appendingPathComponent(name).path,
                                                  andPath: cloud.root.appendingPathComponent(name).path))
        #expect(watch.stop() == 0)
        let log = cloud.stop()
        #expect(log.filter { $0.hasPrefix("HEAD /dav/\(name) ") }.count >= 2, Comment(rawValue: log.joined(separator: "\n")))
        #expect(!log.contains { $0.hasPrefix("GET ") }, Comment(rawValue: log.joined(separator: "\n")))
    }
}

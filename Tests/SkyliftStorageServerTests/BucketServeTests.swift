import Foundation
import SkyliftCore
import SkyliftHashing
@testable import SkyliftStorageServer
import Synchronization
import Testing
import TestPrograms
import TestProbes

/// The embedded cloud over a bucket (`StorageConfiguration.bucket`), against moto and a one-node Ceph RGW: GET and
/// HEAD with validators and ranges, PROPFIND and folder listings, PUT, DELETE, MKCOL, COPY and MOVE through the code
/// the folder store uses; rclone and litmus as clients; a clear 501 for what a bucket does not offer yet.
@Suite(.serialized, .timeLimit(.minutes(3))) struct BucketServeTests {
    /// A store with two files (one written through the store, so with its SHA-256 recorded), an empty folder and a
    /// key under the hidden prefix, served on a free port.
    struct Served {
        let store: S3Store
        let server: StorageServer
        let a: [UInt8], b: [UInt8]
        func url(_ path: String) -> String { server.baseURL + path }
    }

    static func serve(_ peer: S3Peer, partSize: Int = 8 << 20) async throws -> Served {
        let store = try await StoreBucket.make(peer, partSize: partSize)
        let a = randomBytes(1024), b = randomBytes(300_000)
        try await store.write("a.txt", body: AsyncStream { $0.yield(a); $0.finish() })
        try await store.write("photos/b c.jpg", body: AsyncStream { $0.yield(b); $0.finish() })
        _ = try await store.makeFolder("empty")
        _ = try await store.client.putObject(bucket: store.bucket, key: store.prefix + ".skylift-secret", body: .bytes([1, 2, 3]),
                                             sha256: nil, contentType: nil, metadata: [:], condition: .always)
        var configuration = StorageConfiguration(root: URL(fileURLWithPath: "/nonexistent"), token: ServerFixture.token)
        configuration.bucket = store
        let server = try StorageServer(configuration: configuration)
        try server.start()
        return Served(store: store, server: server, a: a, b: b)
    }

    @Test(arguments: S3Peer.allCases) func filesAreReadWithValidatorsAndRanges(peer: S3Peer) async throws {
        let s = try await Self.serve(peer)
        defer { s.server.stop() }
        let whole = try Curl.run([s.url("/dav/a.txt")])
        #expect(whole.status == 200 && whole.body == s.a, "\(whole.status) \(whole.text.prefix(200))")
        #expect(whole.header("Repr-Digest") == "sha-256=:\(Data(Digest.hash(.sha256, s.a)).base64EncodedString()):")
        let etag = try #require(whole.header("ETag"))
        #expect(whole.header("Last-Modified") != nil && whole.header("Accept-Ranges") == "bytes")
        #expect(try Curl.run(["-H", "If-None-Match: \(etag)", s.url("/dav/a.txt")]).status == 304)
        #expect(try Curl.run(["-H", "If-Match: \"other\"", s.url("/dav/a.txt")]).status == 412)

        let range = try Curl.run(["-H", "Range: bytes=100000-199999", s.url("/dav/photos/b%20c.jpg")])
        #expect(range.status == 206 && range.body == Array(s.b[100_000 ..< 200_000]))
        #expect(range.header("Content-Range") == "bytes 100000-199999/300000")
        let big = try Curl.run([s.url("/dav/photos/b%20c.jpg")])
        #expect(big.status == 200 && big.body == s.b)
        let two = try Curl.run(["-H", "Range: bytes=0-9,299990-", s.url("/dav/photos/b%20c.jpg")])
        #expect(two.status == 206 && two.header("Content-Type")?.hasPrefix("multipart/byteranges") == true)
        #expect(two.body.count > 20 && Self.contains(two.body, Array(s.b[0 ..< 10])) && Self.contains(two.body, Array(s.b[299_990...])))
        #expect(try Curl.run(["-H", "Range: bytes=400000-", s.url("/dav/a.txt")]).status == 416)
        let head = try Curl.run(["-I", s.url("/dav/photos/b%20c.jpg")])
        // With -I curl writes the head where the body would go: nothing of the file may follow it.
        #expect(head.status == 200 && head.header("Content-Length") == "300000" && head.text.hasSuffix("\r\n\r\n"))

        #expect(try Curl.run([s.url("/dav/a.txt")], authenticated: false).status == 401)
        #expect(try Curl.run([s.url("/dav/nothing.txt")]).status == 404)
        #expect(try Curl.run([s.url("/dav/.skylift-secret")]).status == 404)
        #expect(try Curl.run([s.url("/dav/%2e%2e/x")]).status == 403)
        let view = try Curl.run([s.url("/dav/photos/?view=timeline")])
        #expect(view.status == 501 && view.text.contains("S3 store"), "\(view.text)")
    }

    /// PUT streams through to a multipart write (parts of 5 MiB here) and replaces a file only whole and checked;
    /// MKCOL and DELETE change the tree; a body cut short stores nothing and leaves no upload behind.
    @Test(arguments: S3Peer.allCases) func filesAreWrittenWholeOrNotAtAll(peer: S3Peer) async throws {
        let s = try await Self.serve(peer, partSize: 5 << 20)
        defer { s.server.stop() }
        let big = randomBytes(12 << 20), file = try tempFile(big)
        defer { try? FileManager.default.removeItem(at: file) }
        let created = try Curl.run(["-T", file.path, s.url("/dav/photos/big.bin")])
        #expect(created.status == 201, "\(created.text)")
        #expect(try await s.store.stat("photos/big.bin")?.sha256 == Digest.hash(.sha256, big))
        #expect(try Curl.run([s.url("/dav/photos/big.bin")]).body == big)
        let small = Array("replaced".utf8)
        #expect(try Curl.run(["-X", "PUT", "--data-binary", "replaced", s.url("/dav/a.txt")]).status == 204)
        #expect(try Curl.run([s.url("/dav/a.txt")]).body == small)
        let wrong = try Curl.run(["-X", "PUT", "--data-binary", "damaged", "-H", "Content-Digest: sha-256=:\(Data(Digest.hash(.sha256, small)).base64EncodedString()):",
                                  s.url("/dav/a.txt")])
        #expect(wrong.status == 400, "\(wrong.text)")
        #expect(try Curl.run([s.url("/dav/a.txt")]).body == small)
        #expect(try Curl.run(["-X", "PUT", "--data-binary", "x", s.url("/dav/none/x.txt")]).status == 409)
        #expect(try Curl.run(["-X", "PUT", "--data-binary", "x", s.url("/dav/photos")]).status == 405)

        #expect(try Curl.run(["-X", "MKCOL", s.url("/dav/new")]).status == 201)
        #expect(try Curl.run(["-X", "MKCOL", s.url("/dav/new")]).status == 405)
        #expect(try Curl.run(["-X", "MKCOL", s.url("/dav/none/deeper")]).status == 409)
        #expect(try await s.store.stat("new")?.kind == .folder)
        #expect(try Curl.run(["-X", "PUT", "--data-binary", "x", s.url("/dav/new/x.txt")]).status == 201)
        // Deleting a folder's last file leaves the folder.
        #expect(try Curl.run(["-X", "DELETE", s.url("/dav/new/x.txt")]).status == 204)
        #expect(try await s.store.stat("new")?.kind == .folder)
        #expect(try Curl.run(["-X", "DELETE", s.url("/dav/photos")]).status == 204)
        #expect(try await s.store.stat("photos") == nil)
        #expect(try await s.store.stat("photos/big.bin") == nil)
        #expect(try Curl.run(["-X", "DELETE", s.url("/dav/photos")]).status == 404)

        // A client that gives up halfway: nothing at the path, and no upload left in the bucket.
        let cut = try Curl.run(["-T", file.path, "--limit-rate", "4M", "--max-time", "1", s.url("/dav/cut.bin")])
        #expect(cut.exitCode != 0, "the upload was meant to be cut short: \(cut.status)")
        var pending = try await s.store.pendingUploads()
        for _ in 0 ..< 300 where !pending.isEmpty {
            try await Task.sleep(for: .milliseconds(100))
            pending = try await s.store.pendingUploads()
        }
        #expect(pending.isEmpty, "\(pending)")
        #expect(try await s.store.stat("cut.bin") == nil)
    }

    /// A write the bucket fails halfway (its multipart upload aborted under it) is answered at once, 502 naming the
    /// path: the client is not left paused, sending into a connection nobody reads.
    @Test(arguments: S3Peer.allCases) func aWriteTheBucketFailsIsAnsweredNotLeftHanging(peer: S3Peer) async throws {
        let s = try await Self.serve(peer, partSize: 5 << 20)
        defer { s.server.stop() }
        let file = try tempFile(randomBytes(40 << 20))
        defer { try? FileManager.default.removeItem(at: file) }
        let put = CurlProcess(["-T", file.path, "--limit-rate", "8M", s.url("/dav/doomed.bin")])
        var pending: [S3StoreUpload] = []
        for _ in 0 ..< 300 where pending.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            pending = try await s.store.pendingUploads()
        }
        let upload = try #require(pending.first, "the write never started its multipart upload")
        _ = try await s.store.client.abortMultipartUpload(bucket: s.store.bucket, key: upload.stagingKey, uploadId: upload.uploadId)
        let answer = put.finish()
        #expect(answer.status == 502 && answer.text.contains("/doomed.bin"), "\(answer.status) \(answer.text) exit \(answer.exitCode)")
        #expect(try await s.store.stat("doomed.bin") == nil)
    }

    /// litmus's basic suite (PUT, GET, DELETE, MKCOL and their error cases) and copymove suite (COPY and MOVE of
    /// files and folders, Overwrite, Depth) over a bucket, as over a folder.
    @Test(arguments: ["basic", "copymove", "props", "locks", "http"]) func litmusPasses(_ suite: String) async throws {
        let s = try await Self.serve(.rgw)
        defer { s.server.stop() }
        let scratch = try TempFolder("bucket-litmus")
        let r = try runTool(TestPrograms.path("litmus"), [s.url("/dav/"), "litmus", ServerFixture.token], environment: ["TESTS": suite],
                            directory: scratch.url)
        #expect(r.out.contains("summary for `\(suite)'") && r.out.contains(" 0 failed"), Comment(rawValue: r.out))
        #expect(r.status == 0, Comment(rawValue: r.out))
    }

    @Test(arguments: S3Peer.allCases) func foldersAreListed(peer: S3Peer) async throws {
        let s = try await Self.serve(peer)
        defer { s.server.stop() }
        let root = try Curl.run(["-X", "PROPFIND", "-H", "Depth: 1", s.url("/dav/")])
        #expect(root.status == 207, "\(root.text)")
        for href in ["<D:href>/dav/</D:href>", "<D:href>/dav/a.txt</D:href>", "<D:href>/dav/empty/</D:href>", "<D:href>/dav/photos/</D:href>"] {
            #expect(root.text.contains(href), "\(href) in \(root.text)")
        }
        #expect(!root.text.contains("skylift-secret"))
        #expect(root.text.contains("<D:getcontentlength>1024</D:getcontentlength>"))
        let digest = """
        <?xml version="1.0"?><propfind xmlns="DAV:" xmlns:S="urn:skylift"><prop><getcontentlength/><S:repr-digest/></prop></propfind>
        """
        let one = try Curl.run(["-X", "PROPFIND", "-H", "Depth: 0", "--data-binary", digest, s.url("/dav/a.txt")])
        #expect(one.status == 207 && one.text.contains(Data(Digest.hash(.sha256, s.a)).base64EncodedString()), "\(one.text)")
        #expect(try Curl.run(["-X", "PROPFIND", "-H", "Depth: 0", s.url("/dav/none/")]).status == 404)
        let index = try Curl.run([s.url("/dav/photos/")])
        #expect(index.status == 200 && index.text.contains("b%20c.jpg"), "\(index.text)")
        let options = try Curl.run(["-X", "OPTIONS", s.url("/dav/")])
        #expect(options.status == 200 && options.header("DAV") == "1, 2")
        #expect(options.header("Allow") == "OPTIONS, GET, HEAD, POST, PUT, DELETE, PROPFIND, PROPPATCH, MKCOL, COPY, MOVE, LOCK, UNLOCK, PATCH")
    }

    /// rclone, a client no one here wrote, copies a tree into the served bucket, checks it, and copies the whole
    /// store out again, byte for byte.
    @Test func rcloneCopiesATreeInAndOut() async throws {
        let s = try await Self.serve(.moto)
        defer { s.server.stop() }
        let scratch = try TempFolder("bucket-rclone"), local = scratch.appending("src"), back = scratch.appending("back")
        let files = ["x.bin": randomBytes(1_500_000), "deep/er/y z.txt": Array("hello".utf8), "empty.dat": []]
        for (name, bytes) in files {
            let u = local.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: u)
        }
        func rclone(_ arguments: [String]) throws -> (out: String, status: Int32) {
            try runTool(TestPrograms.path("rclone"), ["--config", "/dev/null", "--retries", "1", "--low-level-retries", "1"] + arguments, environment: [
                "RCLONE_CONFIG_SKY_TYPE": "webdav", "RCLONE_CONFIG_SKY_URL": s.url("/dav/"),
                "RCLONE_CONFIG_SKY_VENDOR": "other", "RCLONE_CONFIG_SKY_BEARER_TOKEN": ServerFixture.token,
            ])
        }
        let up = try rclone(["copy", local.path, "sky:backup"])
        #expect(up.status == 0, Comment(rawValue: up.out))
        let check = try rclone(["check", local.path, "sky:backup"])
        #expect(check.status == 0, Comment(rawValue: check.out))
        let down = try rclone(["copy", "sky:", back.path])
        #expect(down.status == 0, Comment(rawValue: down.out))
        #expect(try Array(Data(contentsOf: back.appendingPathComponent("a.txt"))) == s.a)
        #expect(try Array(Data(contentsOf: back.appendingPathComponent("photos/b c.jpg"))) == s.b)
        for (name, bytes) in files {
            #expect(try Array(Data(contentsOf: back.appendingPathComponent("backup/" + name))) == bytes, "\(name)")
        }
        let moved = try rclone(["moveto", "sky:backup/x.bin", "sky:backup/deep/x-moved.bin"])
        #expect(moved.status == 0, Comment(rawValue: moved.out))
        #expect(try await s.store.stat("backup/x.bin") == nil)
        #expect(try await s.store.stat("backup/deep/x-moved.bin")?.info.length == 1_500_000)
    }

    /// A folder move another instance stopped halfway (its journal, half the copies) is finished by a server that is
    /// running, without a restart, once the journal has gone unwritten for the idle time; a fresh journal (a move
    /// still running elsewhere) is left alone until then.
    @Test func aRunningServerFinishesAMoveAnotherInstanceLeft() async throws {
        let store = try await StoreBucket.make(.rgw)
        for name in ["1.jpg", "2.jpg", "day/3.mov"] {
            try await store.write("trip/" + name, body: AsyncStream { $0.yield(Array(name.utf8)); $0.finish() })
        }
        var configuration = StorageConfiguration(root: URL(fileURLWithPath: "/nonexistent"), token: ServerFixture.token)
        configuration.bucket = store
        configuration.bucketRecoveryInterval = 0.3
        configuration.bucketMoveIdle = 3
        let server = try StorageServer(configuration: configuration)
        try server.start()
        defer { server.stop() }
        let record = try await store.beginMove("trip", to: "sorted/trip")
        #expect(try await store.copyRemaining(record, limit: 1) == 1)
        try await Task.sleep(for: .seconds(1))
        #expect(try await store.stat("trip/day/3.mov") != nil, "a journal written a second ago was taken over")
        var done = false
        for _ in 0 ..< 100 where !done {
            try await Task.sleep(for: .milliseconds(200))
            done = try await store.stat("trip") == nil
        }
        #expect(done, "the stopped move was not finished")
        for name in ["1.jpg", "2.jpg", "day/3.mov"] {
            #expect(try Curl.run([server.baseURL + "/dav/sorted/trip/" + name]).text == name)
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0 ... haystack.count - needle.count).contains { haystack[$0 ..< $0 + needle.count].elementsEqual(needle) }
    }
}

/// `Curl.run` on a thread of its own, for a request that runs while the test does something else.
final class CurlProcess: Sendable {
    private let result = Box()
    private final class Box: Sendable { let value = Mutex<CurlResult?>(nil) }
    private let done = DispatchSemaphore(value: 0)

    init(_ arguments: [String]) {
        Thread { [result, done] in
            let r = (try? Curl.run(arguments)) ?? CurlResult(status: 0, headers: [:], body: [], exitCode: -1)
            result.value.withLock { $0 = r }
            done.signal()
        }.start()
    }

    /// Waits for curl to end (it gives up after 30 s, `Curl.run`'s limit).
    func finish() -> CurlResult {
        done.wait()
        return result.value.withLock { $0! }
    }
}

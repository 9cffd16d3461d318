import Foundation
import SkyliftCore
import SkyliftHashing
@testable import SkyliftStorageServer
import Testing
import TestPrograms
import TestProbes

/// tus over a bucket (`BucketTusUploads`), against moto and a one-node Ceph RGW: an upload begun on one instance is
/// continued and finished by another, lands whole with its SHA-256 recorded, and the extensions a bucket offers
/// (creation-with-upload, creation-defer-length, termination, expiration) behave as on the folder store (`checksum` and
/// `block-checksum`: `BucketTusChecksumTests`).
@Suite(.serialized, .timeLimit(.minutes(3))) struct BucketTusTests {
    static let partSize = 5 << 20

    /// Servers on the same bucket, each its own instance (no state shared but the bucket).
    static func serve(_ store: S3Store, expiry: TimeInterval = 3600) throws -> StorageServer {
        var configuration = StorageConfiguration(root: URL(fileURLWithPath: "/nonexistent"), token: ServerFixture.token,
                                                 tusExpiry: expiry)
        configuration.bucket = store
        let server = try StorageServer(configuration: configuration)
        try server.start()
        return server
    }

    static let tus = ["-H", "Tus-Resumable: 1.0.0"]
    static let patchType = ["-H", "Content-Type: application/offset+octet-stream"]

    static func metadata(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0) \(Data($0.1.utf8).base64EncodedString())" }.joined(separator: ",")
    }

    static func create(_ server: StorageServer, folder: String, _ headers: [String]) throws -> CurlResult {
        try Curl.run(["-X", "POST"] + tus + headers + [server.baseURL + "/dav/" + folder])
    }

    static func patch(_ server: StorageServer, _ location: String, at offset: Int, _ bytes: ArraySlice<UInt8>,
                      _ extra: [String] = []) throws -> CurlResult {
        try Curl.run(["-X", "PATCH"] + tus + patchType + ["-H", "Upload-Offset: \(offset)"] + extra
            + ["--data-binary", "@-", server.baseURL + location], stdin: Data(bytes))
    }

    static func head(_ server: StorageServer, _ location: String) throws -> CurlResult {
        try Curl.run(["-I"] + tus + [server.baseURL + location])
    }

    /// Begun on one instance, half sent there (a whole part and a tail), looked up and finished on another: the file
    /// is exactly what was sent, under `relativePath`, with its SHA-256 recorded and the upload gone.
    @Test(arguments: S3Peer.allCases) func anUploadBegunOnOneInstanceIsFinishedOnAnother(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer, partSize: Self.partSize)
        let first = try Self.serve(store), second = try Self.serve(store)
        defer { first.stop(); second.stop() }
        let data = randomBytes(12 << 20 + 123)
        let meta = Self.metadata([("filename", "clip.bin"), ("relativePath", "trips/2026/clip.bin")])
        let created = try Self.create(first, folder: "inbox/", ["-H", "Upload-Length: \(data.count)", "-H", "Upload-Metadata: \(meta)"])
        #expect(created.status == 201, "\(created.text)")
        #expect(created.header("Upload-Offset") == "0" && created.header("Upload-Expires") != nil)
        let location = try #require(created.header("Location"))
        #expect(location.hasPrefix("/uploads/"))

        let half = 6 << 20
        let sent = try Self.patch(first, location, at: 0, data[0 ..< half])
        #expect(sent.status == 204 && sent.header("Upload-Offset") == String(half), "\(sent.status) \(sent.text)")

        let head = try Self.head(second, location)
        #expect(head.status == 200)
        #expect(head.header("Upload-Offset") == String(half))
        #expect(head.header("Upload-Length") == String(data.count))
        #expect(head.header("Upload-Metadata") == meta)
        #expect(head.header("Cache-Control") == "no-store")

        let wrong = try Self.patch(second, location, at: half - 1, data[half - 1 ..< half + 10])
        #expect(wrong.status == 409, "\(wrong.text)")
        let zeros = "sha1 " + Data(count: 20).base64EncodedString()
        let checked = try Self.patch(second, location, at: half, data[half ..< half + 10], ["-H", "Upload-Checksum: \(zeros)"])
        #expect(checked.status == 460, "\(checked.text)")
        let past = try Self.patch(second, location, at: half, data[half...] + [1, 2, 3])
        #expect(past.status == 413, "\(past.text)")

        let rest = try Self.patch(second, location, at: half, data[half...])
        #expect(rest.status == 204 && rest.header("Upload-Offset") == String(data.count), "\(rest.status) \(rest.text)")
        let stored = try await store.stat("inbox/trips/2026/clip.bin")
        #expect(stored?.info.length == Int64(data.count))
        #expect(stored?.sha256 == Digest.hash(.sha256, data))
        #expect(try Curl.run([first.baseURL + "/dav/inbox/trips/2026/clip.bin"]).body == data)
        #expect(try Self.head(first, location).status == 404)
        #expect(try await store.pendingUploads().isEmpty)
    }

    /// creation-with-upload, an empty upload, a deferred length, termination; and the refusals: a block checksum
    /// not offered or without a length, a file in the folder's way, a name that is not a plain name.
    @Test(arguments: S3Peer.allCases) func theExtensionsABucketOffersWork(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer, partSize: Self.partSize)
        let server = try Self.serve(store)
        defer { server.stop() }
        let options = try Curl.run(["-X", "OPTIONS", server.baseURL + "/uploads/"])
        let extensions = options.header("Tus-Extension") ?? ""
        #expect(extensions.contains("creation-with-upload") && extensions.contains("termination"), "\(extensions)")

        let small = randomBytes(70_000)
        let withBody = try Curl.run(["-X", "POST"] + Self.tus + Self.patchType
            + ["-H", "Upload-Length: \(small.count)", "-H", "Upload-Metadata: \(Self.metadata([("filename", "small.bin")]))",
               "--data-binary", "@-", server.baseURL + "/dav/"], stdin: Data(small))
        #expect(withBody.status == 201 && withBody.header("Upload-Offset") == String(small.count), "\(withBody.status) \(withBody.text)")
        #expect(withBody.header("Location")?.hasPrefix("/uploads/") == true)
        #expect(try Curl.run([server.baseURL + "/dav/small.bin"]).body == small)

        let empty = try Self.create(server, folder: "", ["-H", "Upload-Length: 0", "-H", "Upload-Metadata: \(Self.metadata([("filename", "empty.txt")]))"])
        #expect(empty.status == 201, "\(empty.text)")
        #expect(try await store.stat("empty.txt")?.info.length == 0)

        let deferred = try Self.create(server, folder: "", ["-H", "Upload-Defer-Length: 1", "-H", "Upload-Metadata: \(Self.metadata([("filename", "later.bin")]))"])
        #expect(deferred.status == 201, "\(deferred.text)")
        let later = try #require(deferred.header("Location"))
        let bytes = randomBytes(150)
        #expect(try Self.patch(server, later, at: 0, bytes[0 ..< 100]).status == 204)
        #expect(try Self.head(server, later).header("Upload-Defer-Length") == "1")
        let last = try Self.patch(server, later, at: 100, bytes[100...], ["-H", "Upload-Length: 150"])
        #expect(last.status == 204 && last.header("Upload-Offset") == "150", "\(last.text)")
        #expect(try Curl.run([server.baseURL + "/dav/later.bin"]).body == bytes)

        let ended = try Self.create(server, folder: "", ["-H", "Upload-Length: 1000", "-H", "Upload-Metadata: \(Self.metadata([("filename", "gone.bin")]))"])
        let gone = try #require(ended.header("Location"))
        #expect(try Self.patch(server, gone, at: 0, randomBytes(10)[...]).status == 204)
        #expect(try Curl.run(["-X", "DELETE"] + Self.tus + [server.baseURL + gone]).status == 204)
        #expect(try Self.head(server, gone).status == 404)
        #expect(try Self.patch(server, gone, at: 10, randomBytes(10)[...]).status == 404)
        #expect(try await store.pendingUploads().isEmpty)
        #expect(try await store.stat("gone.bin") == nil)

        let named = ["-H", "Upload-Length: 10", "-H", "Upload-Metadata: \(Self.metadata([("filename", "x.bin")]))"]
        let blocks = try Self.create(server, folder: "", named + ["-H", "Upload-Block-Checksum: md5"])
        #expect(blocks.status == 400 && blocks.text.contains("crc32c or sha256"), "\(blocks.text)")
        let deferredBlocks = try Self.create(server, folder: "", ["-H", "Upload-Defer-Length: 1", "-H", "Upload-Block-Checksum: crc32c",
                                                                  "-H", "Upload-Metadata: \(Self.metadata([("filename", "y.bin")]))"])
        #expect(deferredBlocks.status == 400 && deferredBlocks.text.contains("Upload-Length"), "\(deferredBlocks.text)")
        #expect(try Self.create(server, folder: "small.bin/", named).status == 409)
        let traversal = try Self.create(server, folder: "", ["-H", "Upload-Length: 10", "-H", "Upload-Metadata: \(Self.metadata([("filename", "..")]))"])
        #expect(traversal.status == 403 || traversal.status == 400, "\(traversal.status)")
        #expect(try Self.create(server, folder: "", ["-H", "Upload-Length: 10"]).status == 400)
        #expect(try Curl.run(["-X", "POST"] + Self.tus + named + [server.baseURL + "/dav/"], authenticated: false).status == 401)
        #expect(try Self.head(server, "/uploads/not-an-upload").status == 404)
    }

    /// concatenation: pieces sent as partial uploads through two instances are joined by a final upload into the file
    /// its metadata names, whole and with its SHA-256; the pieces go; a piece not finished, or named twice, is refused.
    @Test(arguments: S3Peer.allCases) func partialUploadsJoinIntoOneFile(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer, partSize: Self.partSize)
        let first = try Self.serve(store), second = try Self.serve(store)
        defer { first.stop(); second.stop() }
        let data = randomBytes(6 << 20 + 300_007)
        let pieces = [data[0 ..< (6 << 20) + 7], data[((6 << 20) + 7)...]]
        var locations: [String] = []
        for (i, piece) in pieces.enumerated() {
            let server = i == 0 ? first : second
            let made = try Self.create(server, folder: "joined/", ["-H", "Upload-Concat: partial", "-H", "Upload-Length: \(piece.count)"])
            #expect(made.status == 201, "\(made.text)")
            let location = try #require(made.header("Location"))
            #expect(try Self.patch(server, location, at: 0, piece).status == 204)
            #expect(try Self.head(first, location).header("Upload-Concat") == "partial")
            locations.append(location)
        }
        let open = try Self.create(first, folder: "joined/", ["-H", "Upload-Concat: partial", "-H", "Upload-Length: 10"])
        let unfinished = try #require(open.header("Location"))
        let meta = "Upload-Metadata: " + Self.metadata([("filename", "film.bin")])
        let early = try Self.create(first, folder: "joined/", ["-H", meta, "-H", "Upload-Concat: final;\(locations[0]) \(unfinished)"])
        #expect(early.status == 409, "\(early.text)")
        #expect(try Self.create(first, folder: "joined/", ["-H", meta, "-H", "Upload-Concat: final;\(locations[0]) \(locations[0])"]).status == 400)
        #expect(try Self.create(first, folder: "joined/", ["-H", meta, "-H", "Upload-Concat: final;/elsewhere/x"]).status == 400)

        let final = try Self.create(second, folder: "joined/", ["-H", meta, "-H", "Upload-Concat: final;\(locations[0]) \(first.baseURL)\(locations[1])"])
        #expect(final.status == 201 && final.header("Upload-Offset") == String(data.count), "\(final.status) \(final.text)")
        #expect(try Curl.run([first.baseURL + "/dav/joined/film.bin"]).body == data)
        #expect(try await store.stat("joined/film.bin")?.sha256 == Digest.hash(.sha256, data))
        let joined = try Self.head(first, try #require(final.header("Location")))
        #expect(joined.header("Upload-Offset") == String(data.count) && joined.header("Upload-Concat")?.hasPrefix("final;") == true)
        #expect(try Self.patch(first, try #require(final.header("Location")), at: data.count, [1][...]).status == 403)
        for location in locations { #expect(try Self.head(second, location).status == 404) }
    }

    /// An upload idle past the expiry is 410 on its next request, and nothing of it stays in the bucket.
    @Test func anIdleUploadExpires() async throws {
        let store = try await StoreBucket.make(.moto, partSize: Self.partSize)
        let server = try Self.serve(store, expiry: 1)
        defer { server.stop() }
        let created = try Self.create(server, folder: "", ["-H", "Upload-Length: 100", "-H", "Upload-Metadata: \(Self.metadata([("filename", "idle.bin")]))"])
        let location = try #require(created.header("Location"))
        #expect(try Self.patch(server, location, at: 0, randomBytes(10)[...]).status == 204)
        // Last-Modified counts whole seconds.
        try await Task.sleep(for: .milliseconds(2500))
        #expect(try Self.head(server, location).status == 410)
        #expect(try await store.pendingUploads().isEmpty)
    }

    /// tuspy (PyPI), a client no one here wrote, uploads into the bucket in 64 KiB PATCHes.
    @Test func tuspyUploadsIntoTheBucket() async throws {
        let store = try await StoreBucket.make(.rgw, partSize: Self.partSize)
        let server = try Self.serve(store)
        defer { server.stop() }
        let data = randomBytes(300_000)
        let source = try tempFile(data)
        defer { try? FileManager.default.removeItem(at: source) }
        let script = """
        import sys
        from tusclient import client
        base, token, path = sys.argv[1:4]
        c = client.TusClient(base + "/dav/py/", headers={"Authorization": "Bearer " + token})
        u = c.uploader(path, chunk_size=65536, metadata={"filename": "from-tuspy.bin"})
        u.upload()
        """
        let r = try runTool(TestPrograms.python("tusclient"), ["-c", script, server.baseURL, ServerFixture.token, source.path])
        #expect(r.status == 0, "\(r.out)")
        #expect(try await store.stat("py/from-tuspy.bin")?.sha256 == Digest.hash(.sha256, data))
    }
}

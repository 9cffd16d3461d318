import Foundation
import SkyliftHTTPServer
import SkyliftRemotes
import SkyliftCore
import SkyliftStorageServer
import Synchronization
import Testing
import TestProbes
import SkyliftS3

/// `upload`, `copy`, `proxy` and `watch` against S3 services (moto with signatures checked, and a one-node Ceph
/// RGW), through the built `skylift` binary with credentials and endpoint given the AWS way (environment variables).
@Suite(.serialized) struct S3CommandTests {
    /// One per test (a suite value is made for each), removed after it.
    let scratch: TempFolder
    var dir: URL { scratch.url }

    init() throws {
        scratch = try TempFolder("s3cli")
    }

    func randomFile(_ name: String, bytes: Int) throws -> (URL, [UInt8]) {
        let data = try #require(try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom")).read(upToCount: bytes))
        let url = dir.appendingPathComponent(name)
        try data.write(to: url)
        return (url, Array(data))
    }

    func run(_ s3: S3Endpoint, _ arguments: [String], secret: String? = nil) throws -> TransferProcess {
        try TransferProcess(arguments, environment: s3.environment(home: dir, secret: secret))
    }

    @Test(arguments: S3Peer.allCases) func uploadSendsAMultipartObjectThatReadsBackByteExact(peer: S3Peer) async throws {
        let s3 = try S3Endpoint.of(peer)
        let bucket = try await s3.makeBucket()
        // 11 MiB in 5 MiB parts: three parts, the last one short.
        let (file, bytes) = try randomFile("clip.bin", bytes: 11 << 20)
        let (small, smallBytes) = try randomFile("note.txt", bytes: 70_000)
        let upload = try run(s3, ["upload", file.path, small.path, "--to", "s3://\(bucket)/raw/", "--part-size", "5M", "--s3-addressing", "path",
                              "--state", dir.appendingPathComponent("state").path, "--json"])
        let (events, status) = upload.finish()
        #expect(status == 0, "\(upload.errorText)")
        let done = try #require(events.first { $0["event"] as? String == "done" && $0["file"] as? String == file.path })
        #expect(done["destination"] as? String == "s3://\(bucket)/raw/clip.bin")
        #expect((done["etag"] as? String)?.hasSuffix("-3\"") == true)
        // The small file went up in one PUT: its ETag is a plain MD5, not a multipart one ending in "-<parts>".
        let smallDone = try #require(events.first { $0["event"] as? String == "done" && $0["file"] as? String == small.path })
        #expect((smallDone["etag"] as? String)?.contains("-") == false)
        #expect(try await s3.object(bucket, "raw/note.txt") == smallBytes)
        #expect(events.first { $0["event"] as? String == "started" }?["protocol"] as? String == "s3")
        #expect(try await s3.object(bucket, "raw/clip.bin") == bytes)

        // A second run finds the same object there and sends nothing.
        let again = try run(s3, ["upload", file.path, small.path, "--to", "s3://\(bucket)/raw/", "--state", dir.appendingPathComponent("state").path, "--json"])
        let (second, secondStatus) = again.finish()
        #expect(secondStatus == 0)
        #expect(second.filter { $0["event"] as? String == "skipped" }.count == 2)
    }

    @Test(arguments: S3Peer.allCases) func prefixesAndNamesWithSpacesAndUnicodeAreTakenLiterally(peer: S3Peer) async throws {
        // RGW checks these signatures right; moto's checker would refuse them (see S3Endpoint.lenient).
        let lenient = peer == .moto ? try S3Endpoint.lenient.get() : try S3Endpoint.of(.rgw)
        let bucket = try await lenient.makeBucket()
        let (file, bytes) = try randomFile("é clip+1 %41.bin", bytes: 9 << 20)
        let upload = try TransferProcess(["upload", file.path, "--to", "s3://\(bucket)/my dir ü/", "--part-size", "5M",
                                          "--state", dir.appendingPathComponent("state").path, "--json"],
                                         environment: lenient.environment(home: dir))
        let (_, status) = upload.finish()
        #expect(status == 0, "\(upload.errorText)")
        #expect(try await lenient.client().listObjects(bucket: bucket).map(\.key) == ["my dir ü/é clip+1 %41.bin"])
        #expect(try await lenient.object(bucket, "my dir ü/é clip+1 %41.bin") == bytes)

        // The same key as a copy source.
        let copy = try TransferProcess(["copy", "s3://\(bucket)/my dir ü/é clip+1 %41.bin", "s3://\(bucket)/out/",
                                        "--state", dir.appendingPathComponent("state").path, "--json"],
                                       environment: lenient.environment(home: dir))
        let (_, copyStatus) = copy.finish()
        #expect(copyStatus == 0, "\(copy.errorText)")
        #expect(try await lenient.object(bucket, "out/é clip+1 %41.bin") == bytes)
    }

    @Test(arguments: S3Peer.allCases) func copyKilledMidwayResumesFromTheStoredParts(peer: S3Peer) async throws {
        let s3 = try S3Endpoint.of(peer)
        let bucket = try await s3.makeBucket()
        let bytes = try randomFile("long.bin", bytes: 16 << 20).1
        // The source holds back reads from 10 MiB on. With two parts in flight the engine starts part 3 (and
        // its digest, the first read past 10 MiB) only after part 1 or 2 was stored, so when such a read
        // arrives the copy is midway, deterministically, with one or both of the first parts on the service.
        let source = GatedSource(bytes: bytes, gate: 10 << 20)
        let server = HTTPServer(configuration: .init(), handler: source)
        try server.start()
        defer { source.open(); server.stop() }
        let args = ["copy", server.baseURL + "/long.bin", "s3://\(bucket)/raw/", "--part-size", "5M", "--parts", "2",
                    "--state", dir.appendingPathComponent("state").path, "--json"]
        let first = try run(s3, args)
        #expect(source.waitUntilHeld(timeout: 20))
        first.kill9()
        await #expect(throws: S3Error.self) { try await s3.client().headObject(bucket: bucket, key: "raw/long.bin") }

        source.open()
        let second = try run(s3, args)
        let (events, status) = second.finish()
        #expect(status == 0, "\(second.errorText)")
        let resumed = try #require(events.first { $0["event"] as? String == "resumed" }?["from"] as? Int)
        #expect(resumed == 5 << 20 || resumed == 10 << 20)
        let done = try #require(events.first { $0["event"] as? String == "done" })
        #expect(done["sent"] as? Int == bytes.count - resumed)
        #expect(try await s3.object(bucket, "raw/long.bin") == bytes)
    }

    @Test(arguments: S3Peer.allCases) func cancelAbortsAKilledCopysMultipartUpload(peer: S3Peer) async throws {
        let s3 = try S3Endpoint.of(peer)
        let bucket = try await s3.makeBucket()
        let bytes = try randomFile("gated.bin", bytes: 16 << 20).1
        let source = GatedSource(bytes: bytes, gate: 10 << 20)
        let server = HTTPServer(configuration: .init(), handler: source)
        try server.start()
        defer { source.open(); server.stop() }
        let args = ["copy", server.baseURL + "/gated.bin", "s3://\(bucket)/raw/", "--part-size", "5M", "--parts", "2",
                    "--state", dir.appendingPathComponent("state").path]
        let first = try run(s3, args + ["--json"])
        #expect(source.waitUntilHeld(timeout: 20))
        first.kill9()
        source.open()

        let cancel = try run(s3, args + ["--cancel"])
        let out = String(decoding: cancel.stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        cancel.process.waitUntilExit()
        #expect(cancel.process.terminationStatus == 0, "\(cancel.errorText)")
        #expect(out.hasPrefix("cancelled \(server.baseURL)/gated.bin → s3://\(bucket)/raw/gated.bin: removed "))
        #expect(!out.hasSuffix("removed 0 bytes from the server\n"))

        // With the multipart upload and its record gone, the next copy starts from byte 0.
        let again = try run(s3, args + ["--json"])
        let (events, status) = again.finish()
        #expect(status == 0, "\(again.errorText)")
        #expect(!events.contains { $0["event"] as? String == "resumed" })
        #expect(events.first { $0["event"] as? String == "done" }?["sent"] as? Int == bytes.count)
        #expect(try await s3.object(bucket, "raw/gated.bin") == bytes)
    }

    @Test(arguments: S3Peer.allCases) func copyGoesFromHTTPToS3AndFromS3ToS3(peer: S3Peer) async throws {
        let s3 = try S3Endpoint.of(peer)
        let bucket = try await s3.makeBucket()
        let root = dir.appendingPathComponent("cloud")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let token = "copy-\(UUID().uuidString)"
        let cloud = try StorageServer(configuration: StorageConfiguration(root: root, token: token), host: "127.0.0.1", port: 0)
        try cloud.start()
        defer { cloud.stop() }
        let (_, bytes) = try randomFile("cloud/film.mp4", bytes: 9 << 20 + 123)

        let fromHTTP = try run(s3, ["copy", "\(cloud.baseURL)/dav/film.mp4", "s3://\(bucket)/in/", "--source-header", "Authorization: Bearer \(token)",
                                "--state", dir.appendingPathComponent("state").path, "--json"])
        let (_, status) = fromHTTP.finish()
        #expect(status == 0, "\(fromHTTP.errorText)")
        #expect(try await s3.object(bucket, "in/film.mp4") == bytes)

        let fromS3 = try run(s3, ["copy", "s3://\(bucket)/in/film.mp4", "s3://\(bucket)/archive/2026/", "--part-size", "5M",
                              "--state", dir.appendingPathComponent("state").path, "--json"])
        let (events, s3Status) = fromS3.finish()
        #expect(s3Status == 0, "\(fromS3.errorText)")
        #expect((events.first { $0["event"] as? String == "done" }?["etag"] as? String)?.hasSuffix("-2\"") == true)
        #expect(try await s3.object(bucket, "archive/2026/film.mp4") == bytes)

        // And back out of S3 into the http cloud.
        let toHTTP = try run(s3, ["copy", "s3://\(bucket)/archive/2026/film.mp4", "\(cloud.baseURL)/dav/back/", "--token", token,
                              "--state", dir.appendingPathComponent("state").path, "--json"])
        let (_, httpStatus) = toHTTP.finish()
        #expect(httpStatus == 0, "\(toHTTP.errorText)")
        #expect(Array(try Data(contentsOf: root.appendingPathComponent("back/film.mp4"))) == bytes)

        // A missing source object fails with the S3 error named, and nothing is written.
        let missing = try run(s3, ["copy", "s3://\(bucket)/in/nothing.mp4", "s3://\(bucket)/archive/", "--state", dir.appendingPathComponent("state").path])
        let (_, missingStatus) = missing.finish()
        #expect(missingStatus == 1)
        #expect(missing.errorText.contains("nothing.mp4: no such file"))
        await #expect(throws: S3Error.self) { try await s3.client().headObject(bucket: bucket, key: "archive/nothing.mp4") }
    }

    @Test(arguments: S3Peer.allCases) func proxyServesByteExactRangesOfAnS3Object(peer: S3Peer) async throws {
        let s3 = try S3Endpoint.of(peer)
        let bucket = try await s3.makeBucket()
        let (_, bytes) = try randomFile("movie.webm", bytes: 3 << 20)
        // moto's signature check rejects correct signatures of keys with spaces or non-ASCII (see RemotesTests'
        // S3TestServer), so this key is plain; RemotesTests cover encoded keys on its lenient server.
        try await s3.client().putObject(bucket: bucket, key: "movies/trip-1.webm", body: .bytes(bytes))
        // Credentials from a named profile in the shared credentials file, endpoint from --s3-endpoint.
        let proxy = try ProxyProcess(["--origin", "s3://\(bucket)/movies/", "--listen", "127.0.0.1:0", "--quiet",
                                      "--s3-endpoint", s3.endpoint.absoluteString, "--s3-addressing", "path",
                                      "--cache-dir", dir.appendingPathComponent("cache").path],
                                     environment: try s3.profileEnvironment(home: dir))
        let base = try proxy.url()
        for (range, slice) in [("0-99", 0..<100), ("1048576-2097151", 1_048_576..<2_097_152), ("3145000-", 3_145_000..<bytes.count)] {
            #expect(try fetch(base + "/trip-1.webm", range: range) == Array(bytes[slice]), "range \(range)")
        }
        #expect(try fetch(base + "/trip-1.webm") == bytes)
        #expect(try fetch(base + "/absent.webm") == nil)
        kill(proxy.process.processIdentifier, SIGTERM)
        let (status, errors) = proxy.finish()
        #expect(status == 0, "\(errors)")
    }

    @Test(arguments: S3Peer.allCases) func watchUploadsASettledFileToS3(peer: S3Peer) async throws {
        let s3 = try S3Endpoint.of(peer)
        let bucket = try await s3.makeBucket()
        let watched = dir.appendingPathComponent("camera")
        try FileManager.default.createDirectory(at: watched.appendingPathComponent("day1"), withIntermediateDirectories: true)
        let watch = try WatchProcess([watched.path, "--to", "s3://\(bucket)/camera/", "--settle", "0.2", "--json",
                                      "--state", dir.appendingPathComponent("state").path], environment: s3.environment(home: dir))
        #expect(watch.await("scanned") != nil)
        let (_, bytes) = try randomFile("camera/day1/shot.jpg", bytes: 200_000)
        let uploaded = watch.await("uploaded")
        #expect(uploaded?["path"] as? String == "day1/shot.jpg")
        #expect(watch.stop() == 0)
        #expect(try await s3.object(bucket, "camera/day1/shot.jpg") == bytes)
    }

    @Test(arguments: S3Peer.allCases) func watchMovesTheRemoteCopiesOfAMovedFileAndARenamedFolder(peer: S3Peer) async throws {
        // A folder move lists keys under a prefix holding `/`, which moto's signature checker gets wrong.
        let s3 = peer == .moto ? try S3Endpoint.lenient.get() : try S3Endpoint.of(.rgw)
        let bucket = try await s3.makeBucket()
        let watched = dir.appendingPathComponent("camera")
        try FileManager.default.createDirectory(at: watched.appendingPathComponent("day1"), withIntermediateDirectories: true)
        let (_, shot) = try randomFile("camera/day1/shot.jpg", bytes: 200_000)
        let (_, clip) = try randomFile("camera/clip.mov", bytes: 9 << 20)
        let watch = try WatchProcess([watched.path, "--to", "s3://\(bucket)/camera/", "--settle", "0.2", "--json",
                                      "--state", dir.appendingPathComponent("state").path], environment: s3.environment(home: dir))
        #expect(watch.await("uploaded") { $0["path"] as? String == "day1/shot.jpg" } != nil)
        #expect(watch.await("uploaded") { $0["path"] as? String == "clip.mov" } != nil)

        try FileManager.default.moveItem(at: watched.appendingPathComponent("day1"), to: watched.appendingPathComponent("day 2"))
        let folder = watch.await("moved") { $0["to"] as? String == "day 2" }
        #expect(folder?["remote_moved"] as? Bool == true)
        try FileManager.default.moveItem(at: watched.appendingPathComponent("clip.mov"), to: watched.appendingPathComponent("day 2/clip.mov"))
        let file = watch.await("moved") { $0["to"] as? String == "day 2/clip.mov" }
        #expect(file?["remote_moved"] as? Bool == true)
        // Nothing was uploaded again after the moves.
        #expect(watch.stop() == 0)
        let later = watch.remaining()
        #expect(!later.contains { ["uploading", "uploaded"].contains($0["event"] as? String) })
        #expect(try await s3.client().listObjects(bucket: bucket).map(\.key).sorted() == ["camera/day 2/clip.mov", "camera/day 2/shot.jpg"])
        #expect(try await s3.object(bucket, "camera/day 2/shot.jpg") == shot)
        #expect(try await s3.object(bucket, "camera/day 2/clip.mov") == clip)
    }

    @Test(arguments: S3Peer.allCases) func wrongSecretFailsOnceWithA403AndNoSecret(peer: S3Peer) async throws {
        let s3 = try S3Endpoint.of(peer)
        let bucket = try await s3.makeBucket()
        let (file, _) = try randomFile("a.bin", bytes: 1000)
        let secret = "not-the-secret-\(UUID().uuidString)"
        let upload = try run(s3, ["upload", file.path, "--to", "s3://\(bucket)/x/", "--state", dir.appendingPathComponent("state").path,
                              "--json"], secret: secret)
        let (events, status) = upload.finish()
        #expect(status == 1)
        let failed = try #require(events.first { $0["event"] as? String == "failed" }?["error"] as? String)
        // The first call is a HEAD, whose 403 has no error document to name SignatureDoesNotMatch.
        #expect(failed.contains("403") && failed.contains("credentials"), "\(failed)")
        #expect(!events.contains { $0["event"] as? String == "retried" })
        let everything = String(decoding: try JSONSerialization.data(withJSONObject: events), as: UTF8.self) + upload.errorText
        #expect(!everything.contains(secret))
    }

    @Test func badS3OptionsAreUsageErrors() async {
        let cases: [([String], String)] = [
            (["upload", "a.bin", "--to", "s3://A/x/"], "skylift upload: bad value 's3://A/x/' for '--to': expected s3://bucket/prefix/ with a valid bucket name\n"),
            (["upload", "a.bin", "--to", "s3://bucket/x/", "--part-size", "1M"],
             "skylift upload: bad value '1M' for '--part-size': expected at least 5M for an s3:// destination\n"),
            (["upload", "a.bin", "--to", "s3://bucket/x/", "--s3-addressing", "dns"],
             "skylift upload: bad value 'dns' for '--s3-addressing': expected path, virtual or auto\n"),
            (["copy", "a.bin", "s3://bucket/x/", "--s3-endpoint", "ftp://h"],
             "skylift copy: bad value 'ftp://h' for '--s3-endpoint': expected an http(s) URL such as http://127.0.0.1:9000\n"),
            (["copy", "s3://bucket/folder/", "s3://bucket/x/"],
             "skylift copy: bad value 's3://bucket/folder/' for 'SOURCE': expected s3://bucket/key naming an object, not a prefix\n"),
            (["proxy", "--origin", "s3://bucket/x/", "--token", "t0ken"],
             "skylift proxy: options '--token', '--token-file', '--header' and '--header-file' cannot be used with an s3:// origin (requests are signed with the AWS credentials)\n"),
            (["proxy", "--origin", "s3://x/"], "skylift proxy: bad value 's3://x/' for '--origin': expected s3://bucket/prefix/ with a valid bucket name\n"),
            (["watch", "/tmp", "--to", "s3://bucket/x/", "--part-size", "64K"],
             "skylift watch: bad value '64K' for '--part-size': expected at least 5M for an s3:// destination\n"),
        ]
        for (args, message) in cases {
            let r = await runSkylift(args, environment: ["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"])
            #expect(r.status == 2, "\(args)")
            #expect(r.err == message)
        }
    }
}

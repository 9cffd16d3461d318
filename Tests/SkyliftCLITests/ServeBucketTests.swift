import Foundation
import SkyliftS3
import Testing
import TestPrograms
import TestProbes

/// `skylift serve --store s3://…` as a process, on moto: it serves the store's files, prints what it serves
/// without the token, and refuses what a bucket cannot take with a message naming the option.
@Suite(.serialized) struct ServeBucketTests {
    @Test func servesTheStoreOfABucket() async throws {
        let scratch = try TempFolder("serve-bucket"), home = scratch.url
        let s3 = try S3Endpoint.lenient.get()
        let bucket = try await s3.makeBucket()
        let clip = Array("a short clip".utf8)
        _ = try await s3.client().putObject(bucket: bucket, key: "cloud/films/clip.mp4", body: .bytes(clip), sha256: nil,
                                            contentType: "video/mp4", metadata: [:], condition: .always)
        let token = "bucket-token-1"
        let serve = try ServeProcess(["--store", "s3://\(bucket)/cloud/", "--s3-addressing", "path", "--listen", "127.0.0.1:0",
                                      "--token", token, "--quiet"], environment: s3.environment(home: home))
        defer { _ = serve.terminate() }
        let printed = serve.lines(4)
        #expect(printed.first == "skylift: serving s3://\(bucket)/cloud/ (WebDAV class 1 and 2, tus, web app)", "\(printed)")
        #expect(!printed.joined().contains(token))
        #expect(printed.contains { $0.hasPrefix("  open:  http://") && $0.contains("/signin?code=") }, "\(printed)")
        let url = try #require(printed.first { $0.hasPrefix("  url:   ") }.map { String($0.dropFirst(9)) })
        let got = try runForOutput(try TestPrograms.path("curl"), ["-s", "-H", "Authorization: Bearer \(token)", url + "films/clip.mp4"])
        #expect(got.status == 0 && got.out == "a short clip", "\(printed) \(got)")
        #expect(try curlStatus(["-r", "0-4", "-H", "Authorization: Bearer \(token)", url + "films/clip.mp4"]) == "206")
        #expect(try curlStatus([url + "films/clip.mp4"]) == "401")
    }

    /// `skylift upload --parts 3` to a bucket's serve: three partial tus uploads at once, joined into the file.
    @Test func anUploadInPartsIsJoinedInTheBucket() async throws {
        let scratch = try TempFolder("serve-bucket-parts"), home = scratch.url
        let s3 = try S3Endpoint.lenient.get()
        let bucket = try await s3.makeBucket()
        let token = "bucket-token-2"
        let log = home.appendingPathComponent("access.log")
        let serve = try ServeProcess(["--store", "s3://\(bucket)/cloud/", "--s3-addressing", "path", "--listen", "127.0.0.1:0",
                                      "--token", token], environment: s3.environment(home: home), errors: log)
        defer { _ = serve.terminate() }
        let url = try #require(serve.lines(4).first { $0.hasPrefix("  url:   ") }.map { String($0.dropFirst(9)) })
        let data = [UInt8](try #require(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: 12 << 20))
        let file = home.appendingPathComponent("three.bin")
        try Data(data).write(to: file)
        let upload = try TransferProcess(["upload", file.path, "--to", url + "in/", "--token", token, "--parts", "3",
                                          "--state", home.appendingPathComponent("state").path, "--json"])
        let (events, status) = upload.finish()
        #expect(status == 0, "\(upload.errorText) \(events)")
        let stored = try await s3.client().getObject(bucket: bucket, key: "cloud/in/three.bin").collect(upTo: 13 << 20)
        #expect(stored == data, "\(stored.count) bytes stored")
        // Three partial uploads and the final one that joined them.
        let posts = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("POST /dav/in/ 201") }
        #expect(posts.count == 4, "\(posts)")

        // `skylift signin --store` records a code in the bucket that the running serve takes, once.
        let base = try #require(URL(string: url)?.deletingLastPathComponent().deletingLastPathComponent().absoluteString)
        let signin = await runSkylift(["signin", "--store", "s3://\(bucket)/cloud/", "--s3-addressing", "path", "--url", base],
                                      environment: s3.environment(home: home))
        #expect(signin.status == 0, "\(signin.err)")
        let link = try #require(signin.out.split(separator: "\n").first.map(String.init), "\(signin.err)")
        #expect(link.hasPrefix(base.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/signin?code="), "\(link)")
        #expect(try curlStatus([link]) == "303")
        #expect(try curlStatus([link]) == "401")

        // `skylift share --store`: a link the running serve opens, listed and revoked through the bucket.
        let bucketArgs = ["--store", "s3://\(bucket)/cloud/", "--s3-addressing", "path"]
        let shared = await runSkylift(["share", "/in/three.bin", "--url", base] + bucketArgs, environment: s3.environment(home: home))
        #expect(shared.status == 0, "\(shared.err)")
        let lines = shared.out.split(separator: "\n").map(String.init)
        let shareLink = try #require(lines.first, "\(shared.err)")
        #expect(shareLink.hasSuffix("/three.bin"), "\(shareLink)")
        #expect(try curlStatus([shareLink]) == "200")
        #expect(try curlStatus(["-r", "0-9", shareLink]) == "206")
        let id = try #require(lines.dropFirst().first?.split(separator: " ").dropFirst().first.map { String($0.dropLast()) })
        let listed = await runSkylift(["share", "--list"] + bucketArgs, environment: s3.environment(home: home))
        #expect(listed.out.contains(id) && listed.out.contains("/in/three.bin"), "\(listed.out) \(listed.err)")
        #expect(await runSkylift(["share", "--revoke", id] + bucketArgs, environment: s3.environment(home: home)).status == 0)
        #expect(try curlStatus([shareLink]) == "403")
        let missing = await runSkylift(["share", "/in/none.bin"] + bucketArgs, environment: s3.environment(home: home))
        #expect(missing.status != 0 && missing.err.contains("no such file or folder"), "\(missing.err)")
    }

    @Test func aBucketNeedsAGivenTokenAndItsOwnCertificate() throws {
        let scratch = try TempFolder("serve-bucket-bad"), home = scratch.url
        let s3 = try S3Endpoint.lenient.get()
        var environment = s3.environment(home: home)
        environment["SKYLIFT_TOKEN"] = nil
        let cases: [([String], String, Int32)] = [
            (["--store", "s3://media/x/"], "needs --token-file, --token, $SKYLIFT_TOKEN or --no-auth", 1),
            (["--store", "s3://media/x/", "--no-auth", "--tls-self-signed"], "--tls-self-signed", 2),
            (["--store", "/tmp/x", "--no-auth"], "--store", 2),
            (["--store", "s3://media/x/", "--root", "/tmp", "--no-auth"], "--root", 2),
        ]
        for (arguments, message, status) in cases {
            let run = try TransferProcess(["serve"] + arguments + ["--s3-addressing", "path"], environment: environment)
            let (_, code) = run.finish()
            #expect(code == status && run.errorText.contains(message), "\(arguments): \(code) \(run.errorText)")
        }
    }
}

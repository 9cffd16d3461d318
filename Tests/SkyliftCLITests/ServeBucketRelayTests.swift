import Foundation
import SkyliftHashing
import SkyliftS3
import Testing
import TestPrograms
import TestProbes

/// Three `skylift serve --store s3://…` instances on one Ceph RGW bucket, behind a round-robin relay of the test's
/// own (a balancer without affinity): any request may reach any instance, and the bucket is all they share.
@Suite(.serialized) struct ServeBucketRelayTests {
    static let token = "relay-token-1"
    /// The part size `serve --store` writes in (S3Store's default).
    static let partSize: Int64 = 8 << 20

    struct Cluster {
        let s3: S3Endpoint
        let bucket: String
        let instances: [ServeProcess]
        let relay: RoundRobinRelay
        var base: String { "http://127.0.0.1:\(relay.port)" }
    }

    static func cluster(home: URL, pause: UInt32) async throws -> Cluster {
        let s3 = try S3Endpoint.rgw.get()
        let bucket = try await s3.makeBucket()
        var instances: [ServeProcess] = [], ports: [UInt16] = []
        for _ in 0 ..< 3 {
            let serve = try ServeProcess(["--store", "s3://\(bucket)/cloud/", "--s3-addressing", "path", "--listen", "127.0.0.1:0",
                                          "--token", token, "--quiet"], environment: s3.environment(home: home))
            instances.append(serve)
            let printed = serve.lines(3)
            let url = try #require(printed.first { $0.hasPrefix("  url:   ") }.flatMap { URL(string: String($0.dropFirst(9))) }, "\(printed)")
            ports.append(UInt16(try #require(url.port)))
        }
        return Cluster(s3: s3, bucket: bucket, instances: instances, relay: try RoundRobinRelay(upstreams: ports, pause: pause))
    }

    /// `skylift upload` sends 40 MiB in one tus PATCH through the relay; the instance carrying it is killed with
    /// SIGKILL once two parts can be in the bucket. The client retries, the relay hands it to another instance,
    /// which finds the upload's offset in the bucket and takes the rest: the object is exactly the file, and the
    /// bytes sent twice are at most the part the kill cut (plus what the sockets held).
    @Test func aTusUploadSurvivesTheKillOfTheInstanceCarryingIt() async throws {
        let scratch = try TempFolder("bucket-relay"), home = scratch.url
        // About 16 MiB/s through the relay: the kill lands mid-body on any machine.
        let c = try await Self.cluster(home: home, pause: 4000)
        defer { print("DEBUG stopping at \(Date())"); for serve in c.instances { _ = serve.terminate() }; print("DEBUG stopped at \(Date())") }
        print("DEBUG started at \(Date())")
        let size = 40 << 20
        let data = [UInt8](try #require(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: size))
        let file = home.appendingPathComponent("long.bin")
        try Data(data).write(to: file)

        let upload = try TransferProcess(["upload", file.path, "--to", c.base + "/dav/in/", "--token", Self.token,
                                          "--state", home.appendingPathComponent("state").path, "--json"])
        var carrier: Int?
        for _ in 0 ..< 6000 where carrier == nil {
            if c.relay.bytesSent >= 2 * Self.partSize + (3 << 20) {
                let sent = c.relay.bytesSentTo
                carrier = sent.indices.max { sent[$0] < sent[$1] }
            } else {
                usleep(10_000)
            }
        }
        let killed = try #require(carrier, "the upload never got past two parts")
        let before = c.relay.bytesSentTo
        c.instances[killed].kill9()

        print("DEBUG killed at \(Date())")
        let (events, status) = upload.finish()
        print("DEBUG finished at \(Date())")
        #expect(status == 0, "\(upload.errorText) \(events)")
        let kinds = events.compactMap { $0["event"] as? String }
        print("DEBUG events: \(events.filter { ($0["event"] as? String) != "progress" })")
        #expect(kinds.contains("retried"), "the kill did not cut the upload: \(kinds)")
        // The rest went through the others.
        let after = c.relay.bytesSentTo
        let others = after.indices.filter { $0 != killed }.reduce(Int64(0)) { $0 + after[$1] - before[$1] }
        #expect(others > Self.partSize, "\(before) → \(after)")

        let stored = try await c.s3.client().getObject(bucket: c.bucket, key: "cloud/in/long.bin").collect(upTo: size + 1)
        #expect(stored.count == size && stored == data, "\(stored.count) bytes stored")
        let head = try await c.s3.client().headObjectMetadata(bucket: c.bucket, key: "cloud/in/long.bin")
        #expect(head.metadata["skylift-sha256"] == Digest.hash(.sha256, data).hexString)

        // Request heads are a few KiB; everything else beyond the file is what the kill cut off and was sent again.
        let again = c.relay.bytesSent - Int64(size)
        print("relay: \(c.relay.bytesSent) bytes for a file of \(size): \(again) sent again; per instance \(after)")
        #expect(again >= 0 && again < Self.partSize + (2 << 20), "\(again) bytes sent again")

        // Nothing of the upload is left behind in the bucket.
        let leftovers = try await c.s3.client().listObjects(bucket: c.bucket, prefix: "cloud/.skylift/uploads/")
        #expect(leftovers.isEmpty, "\(leftovers.map(\.key))")
    }

    /// Through the relay each request (a new connection) reaches the next instance: a WebDAV lock, a web app session
    /// and a share link made through one hold on all three, and so do an unlock, a sign-out and a revocation.
    @Test func locksSessionsAndShareLinksHoldOnEveryInstance() async throws {
        let scratch = try TempFolder("bucket-relay-state"), home = scratch.url
        let c = try await Self.cluster(home: home, pause: 0)
        defer { for serve in c.instances { _ = serve.terminate() } }
        let bearer = ["-H", "Authorization: Bearer \(Self.token)"]
        func curl(_ arguments: [String]) throws -> (status: String, body: String) {
            let r = try runForOutput(try TestPrograms.path("curl"), ["-s", "-o", "-", "-w", "\n%{http_code}"] + arguments)
            let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
        }
        /// One request through each of the three instances in turn.
        func thrice(_ arguments: [String]) throws -> [String] { try (0 ..< 3).map { _ in try curl(arguments).status } }

        #expect(try curl(bearer + ["-T", "-", c.base + "/dav/doc.txt"]).status == "201")
        let lockBody = #"<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>"#
        let locked = try runForOutput(try TestPrograms.path("curl"), ["-s", "-D", "-", "-o", "/dev/null", "-X", "LOCK", "-H", "Depth: 0",
                                                                      "--data-binary", lockBody] + bearer + [c.base + "/dav/doc.txt"])
        let token = try #require(locked.out.split(separator: "\r\n").first { $0.lowercased().hasPrefix("lock-token:") }
            .map { String($0.drop { $0 != "<" }.dropFirst().prefix { $0 != ">" }) }, "\(locked.out)")
        #expect(try thrice(bearer + ["-X", "PUT", "--data-binary", "x", c.base + "/dav/doc.txt"]) == ["423", "423", "423"])
        #expect(try curl(bearer + ["-X", "UNLOCK", "-H", "Lock-Token: <\(token)>", c.base + "/dav/doc.txt"]).status == "204")
        #expect(try thrice(bearer + ["-X", "PUT", "--data-binary", "x", c.base + "/dav/doc.txt"]) == ["204", "204", "204"])

        let signIn = try runForOutput(try TestPrograms.path("curl"), ["-s", "-D", "-", "-o", "/dev/null", c.base + "/?token=\(Self.token)"])
        let cookie = try #require(signIn.out.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") }
            .map { String($0.dropFirst("set-cookie:".count).drop { $0 == " " }.prefix { $0 != ";" }) }, "\(signIn.out)")
        let withCookie = ["-H", "Cookie: \(cookie)", "-H", "Sec-Fetch-Site: same-origin"]
        #expect(try thrice(withCookie + [c.base + "/dav/?list"]) == ["200", "200", "200"])

        let made = try curl(withCookie + ["-X", "POST", "--data-binary", #"{"path": "/doc.txt", "expires": "1h"}"#, c.base + "/api/share"])
        #expect(made.status == "201", "\(made)")
        let share = try #require(try JSONSerialization.jsonObject(with: Data(made.body.utf8)) as? [String: Any])
        let link = try #require(share["link"] as? String), id = try #require(share["id"] as? String)
        #expect(try thrice([c.base + "/" + link]) == ["200", "200", "200"])
        #expect(try curl(withCookie + ["-X", "DELETE", c.base + "/api/shares/\(id)"]).status == "204")
        #expect(try thrice([c.base + "/" + link]) == ["403", "403", "403"])

        #expect(try curl(withCookie + ["-X", "POST", c.base + "/signout"]).status == "303")
        // The other instances read the sessions again within 5 s.
        try await Task.sleep(for: .seconds(6))
        #expect(try thrice(withCookie + [c.base + "/dav/?list"]) == ["401", "401", "401"])
        #expect(c.relay.connectionsTo.allSatisfy { $0 >= 5 }, "\(c.relay.connectionsTo)")
    }
}

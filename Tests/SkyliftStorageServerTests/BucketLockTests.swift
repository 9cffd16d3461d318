import Foundation
import SkyliftCore
@testable import SkyliftStorageServer
import Testing
import TestPrograms
import TestProbes

/// WebDAV locks over a bucket (`BucketLocks`): kept in the bucket, so a lock taken through one instance holds on
/// another, and of two instances granting exclusive locks on one file at once only one succeeds.
@Suite(.serialized, .timeLimit(.minutes(3))) struct BucketLockTests {
    static let lockBody = """
    <?xml version="1.0" encoding="utf-8"?>
    <D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype>
    <D:owner>tester</D:owner></D:lockinfo>
    """

    static func lock(_ server: StorageServer, _ path: String, depth: String = "0") throws -> CurlResult {
        try Curl.run(["-X", "LOCK", "-H", "Depth: \(depth)", "-H", "Timeout: Second-600", "-H", "Content-Type: application/xml",
                      "--data-binary", lockBody, server.baseURL + path])
    }

    static func put(_ server: StorageServer, _ path: String, _ text: String, token: String? = nil) throws -> CurlResult {
        try Curl.run(["-X", "PUT", "--data-binary", text] + (token.map { ["-H", "If: (<\($0)>)"] } ?? []) + [server.baseURL + path])
    }

    @Test(arguments: S3Peer.allCases) func aLockTakenOnOneInstanceHoldsOnAnother(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer)
        let first = try BucketTusTests.serve(store), second = try BucketTusTests.serve(store)
        defer { first.stop(); second.stop() }
        #expect(try Self.put(first, "/dav/a.txt", "one").status == 201)
        #expect(try Curl.run(["-X", "OPTIONS", first.baseURL + "/dav/"]).header("DAV") == "1, 2")

        let locked = try Self.lock(first, "/dav/a.txt")
        #expect(locked.status == 200, "\(locked.text)")
        let token = try #require(locked.header("Lock-Token").map { String($0.dropFirst().dropLast()) })
        #expect(token.hasPrefix("opaquelocktoken:"))

        let refused = try Self.put(second, "/dav/a.txt", "two")
        #expect(refused.status == 423, "\(refused.text)")
        #expect(try Curl.run(["-X", "DELETE", second.baseURL + "/dav/a.txt"]).status == 423)
        #expect(try Self.lock(second, "/dav/a.txt").status == 423)
        let listed = try Curl.run(["-X", "PROPFIND", "-H", "Depth: 0", second.baseURL + "/dav/a.txt"])
        #expect(listed.status == 207 && listed.text.contains(token) && listed.text.contains("tester"), "\(listed.text)")
        #expect(try Self.put(second, "/dav/a.txt", "two", token: token).status == 204)
        #expect(try await store.stat("a.txt")?.info.length == 3)

        let wrongUnlock = try Curl.run(["-X", "UNLOCK", "-H", "Lock-Token: <opaquelocktoken:nothing>", second.baseURL + "/dav/a.txt"])
        #expect(wrongUnlock.status == 409)
        #expect(try Curl.run(["-X", "UNLOCK", "-H", "Lock-Token: <\(token)>", second.baseURL + "/dav/a.txt"]).status == 204)
        #expect(try Self.put(first, "/dav/a.txt", "three").status == 204)

        // A lock on an unmapped URL makes an empty file there.
        let unmapped = try Self.lock(second, "/dav/new.txt")
        #expect(unmapped.status == 201, "\(unmapped.text)")
        #expect(try await store.stat("new.txt")?.info.length == 0)
        #expect(try Self.put(first, "/dav/new.txt", "x").status == 423)
        // Deleting the file with its token drops its lock on every instance.
        let newToken = try #require(unmapped.header("Lock-Token").map { String($0.dropFirst().dropLast()) })
        #expect(try Curl.run(["-X", "DELETE", "-H", "If: (<\(newToken)>)", first.baseURL + "/dav/new.txt"]).status == 204)
        #expect(try Self.put(second, "/dav/new.txt", "y").status == 201)
    }

    /// Eight exclusive LOCKs of one file at once, through two instances: the bucket's conditional writes let exactly
    /// one through.
    @Test func exclusiveLocksRacingThroughTwoInstancesGrantOne() async throws {
        let store = try await StoreBucket.make(.rgw)
        let servers = [try BucketTusTests.serve(store), try BucketTusTests.serve(store)]
        defer { for s in servers { s.stop() } }
        #expect(try Self.put(servers[0], "/dav/contested.txt", "x").status == 201)
        let racers = (0 ..< 8).map { i in
            CurlProcess(["-X", "LOCK", "-H", "Depth: 0", "-H", "Content-Type: application/xml", "--data-binary", Self.lockBody,
                         servers[i % 2].baseURL + "/dav/contested.txt"])
        }
        let statuses = racers.map { $0.finish().status }
        #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses)")
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 423 }, "\(statuses)")
    }
}

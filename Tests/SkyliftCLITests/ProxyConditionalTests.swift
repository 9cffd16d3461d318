import Foundation
import SkyliftCore
import SkyliftStorageServer
import TestProbes
import Testing

/// `skylift proxy` answers conditional requests from the validators it cached from the origin, by the same
/// rules (RFC 9110 §13.2.2) as `serve`.
@Suite struct ProxyConditionalTests {
    @Test func ifModifiedSinceAndIfUnmodifiedSinceAgainstCachedValidators() throws {
        let scratch = try TempFolder("proxy-cond"), base = scratch.url
        let root = base.appendingPathComponent("cloud"), cache = base.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let file = root.appendingPathComponent("clip.mp4")
        try Data((0 ..< 10_000).map { UInt8(truncatingIfNeeded: $0) }).write(to: file)
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file.path)
        let cloud = try StorageServer(configuration: StorageConfiguration(root: root, token: "tok"))
        try cloud.start()
        defer { cloud.stop() }
        let proxy = try ProxyProcess(["--origin", cloud.baseURL + "/dav", "--token", "tok", "--listen", "127.0.0.1:0",
                                      "--cache-dir", cache.path, "--quiet"])
        defer { proxy.process.terminate(); _ = proxy.finish() }
        let url = try proxy.url() + "/clip.mp4"
        func status(_ fields: [String]) throws -> String { try curlStatus(fields.flatMap { ["-H", $0] } + [url]) }
        let at = HTTPDate.format(modified), before = HTTPDate.format(modified - 3600), after = HTTPDate.format(modified + 3600)

        #expect(try status([]) == "200")
        #expect(try status(["If-Modified-Since: \(at)"]) == "304")
        #expect(try status(["If-Modified-Since: \(after)"]) == "304")
        #expect(try status(["If-Modified-Since: \(before)"]) == "200")
        #expect(try status(["If-Unmodified-Since: \(before)"]) == "412")
        #expect(try status(["If-Unmodified-Since: \(at)"]) == "200")
        #expect(try status(["If-Unmodified-Since: \(at)", "Range: bytes=0-9"]) == "206")
        // The order of RFC 9110 §13.2.2: a failed If-Unmodified-Since wins over If-Modified-Since ...
        #expect(try status(["If-Unmodified-Since: \(before)", "If-Modified-Since: \(after)"]) == "412")
        // ... an If-None-Match that does not match hides If-Modified-Since ...
        #expect(try status(["If-None-Match: \"nothing\"", "If-Modified-Since: \(after)"]) == "200")
        // ... and If-Range by date holds only for the exact Last-Modified.
        #expect(try status(["If-Range: \(at)", "Range: bytes=0-9"]) == "206")
        #expect(try status(["If-Range: \(before)", "Range: bytes=0-9"]) == "200")
    }
}

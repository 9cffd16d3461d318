import Foundation
import SkyliftRangeCache
import SkyliftCore
import SkyliftStreamProxy
import TestProbes
import Testing

@Suite struct StreamProxyTests {
    @Test func rangesThroughTheProxyAreByteExact() async throws {
        let f = try ProxyFixture()
        let data = try randomBytes(2_500_003)
        try f.put("clip.mp4", data)
        let url = f.url("clip.mp4")

        let whole = try await curl([url])
        #expect(whole.status == 200)
        #expect(whole.body == data)
        #expect(whole.headers["content-type"] == "video/mp4")
        #expect(whole.headers["accept-ranges"] == "bytes")

        let head = try await curl(["-I", url])
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == String(data.count))
        #expect(head.headers["etag"] != nil)

        var rng = SystemRandomNumberGenerator()
        for _ in 0..<8 {
            let a = Int.random(in: 0 ..< data.count, using: &rng)
            let b = min(data.count - 1, a + Int.random(in: 0 ..< 300_000, using: &rng))
            let r = try await curl(["-r", "\(a)-\(b)", url])
            #expect(r.status == 206)
            #expect(r.headers["content-range"] == "bytes \(a)-\(b)/\(data.count)")
            #expect(r.body == Array(data[a ... b]))
        }
        let suffix = try await curl(["-r", "-12345", url])
        #expect(suffix.status == 206)
        #expect(suffix.body == Array(data[(data.count - 12345)...]))
        let open = try await curl(["-r", "2400000-", url])
        #expect(open.body == Array(data[2_400_000...]))

        let multi = try await curl(["-r", "0-99,1000000-1000999,-500", url])
        #expect(multi.status == 206)
        let type = try #require(multi.headers["content-type"])
        #expect(type.hasPrefix("multipart/byteranges; boundary="))
        let parts = multipartParts(multi.body, boundary: String(type.split(separator: "=", maxSplits: 1)[1]))
        #expect(parts.map(\.0) == ["bytes 0-99/\(data.count)", "bytes 1000000-1000999/\(data.count)",
                                   "bytes \(data.count - 500)-\(data.count - 1)/\(data.count)"])
        #expect(parts.map(\.1) == [Array(data[0 ..< 100]), Array(data[1_000_000 ..< 1_001_000]), Array(data[(data.count - 500)...])])

        let unsatisfiable = try await curl(["-r", "3000000-3000010", url])
        #expect(unsatisfiable.status == 416)
        #expect(unsatisfiable.headers["content-range"] == "bytes */\(data.count)")

        // If-Range naming another version: the whole current representation instead of the range.
        let stale = try await curl(["-r", "0-9", "-H", "If-Range: \"not-this-one\"", url])
        #expect(stale.status == 200)
        #expect(stale.body == data)
        let current = try await curl(["-r", "0-9", "-H", "If-Range: \(whole.headers["etag"]!)", url])
        #expect(current.status == 206)
        #expect(current.body == Array(data[0 ..< 10]))

        // All of that cost the origin at most one copy of the file.
        #expect(f.originLog.bytesOut <= Int64(data.count))
    }

    @Test func severalPlayersAtOnce() async throws {
        let f = try ProxyFixture()
        let data = try randomBytes(3_000_000)
        try f.put("movie.mkv", data)
        let url = f.url("movie.mkv")
        let starts = [0, 0, 1_000_000, 2_222_222, 17, 1_500_000]
        let bodies = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for start in starts {
                group.addTask { (start, try await curl(["-r", "\(start)-", url]).body) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for (start, body) in bodies { #expect(body == Array(data[start...]), "player from \(start)") }
        #expect(f.originLog.bytesOut <= Int64(data.count))
    }

    @Test func seekingPlayerGetsTheRightBytes() async throws {
        let f = try ProxyFixture()
        let data = try randomBytes(16_000_000)
        try f.put("seek.mp4", data)
        let ops = [(0, 200_000), (13_500_000, 100_000), (1_000_000, 300_000), (150_000, 100_000), (15_999_000, -1)]
        let player = try PlayerProcess(port: f.proxy.port, path: "/seek.mp4", ops: ops.map { "\($0.0):\($0.1)" })
        #expect(try await offPool { player.line() } == "OK")
        let expected = ops.flatMap { op in Array(data[op.0 ..< (op.1 < 0 ? data.count : op.0 + op.1)]) }
        #expect(try await offPool { try player.finish() } == expected)
        // Seeking left no runaway downloads: each seek costs the origin what was read plus at most the read-ahead
        // in flight (the window grows to 1 MiB; two windows allowed, however slow the machine is to cancel).
        // One seek left running to the end of this 16 MB file would pass that bound.
        let bound = expected.count + ops.count * 2 * (1 << 20)
        #expect(f.originLog.bytesOut <= Int64(bound), "\(f.originLog.bytesOut) bytes from the origin")
        #expect(bound < data.count - 2 * (1 << 20))
    }

    @Test func originChangeMidStreamIsAnErrorNotAMix() async throws {
        let f = try ProxyFixture(window: 128 * 1024)
        let old = try randomBytes(8_000_000), new = try randomBytes(7_000_000)
        try f.put("live.ts", old)
        let player = try PlayerProcess(port: f.proxy.port, path: "/live.ts", ops: ["0:-1:65536"])
        #expect(try await offPool { player.line() } == "PAUSED")
        try f.put("live.ts", new)
        player.resume()
        let verdict = try #require(try await offPool { player.line() })
        #expect(verdict.hasPrefix("SHORT"))
        let got = try await offPool { try player.finish() }
        #expect(got.count < old.count)
        #expect(got == Array(old[0 ..< got.count]))
        #expect(f.proxyLog.all.contains { $0.contains("origin changed") })
        #expect(try await curl([f.url("live.ts")]).body == new)
    }

    @Test func originStatusesArePassedOnAndSecretsStayOut() async throws {
        let f = try ProxyFixture(token: "wrong-token-value")
        try f.put("x.bin", [1, 2, 3])
        let denied = try await curl(["-v", f.url("x.bin")])
        #expect(denied.status == 401)
        #expect(f.proxyLog.all.contains { $0.contains("401") && $0.contains("/x.bin") })

        let good = try ProxyFixture()
        try good.put("x.bin", [1, 2, 3])
        #expect(try await curl([good.url("missing.bin")]).status == 404)
        let ok = try await curl([good.url("x.bin")])
        #expect(ok.body == [1, 2, 3])
        for (name, value) in ok.headers { #expect(!value.contains(ProxyFixture.token), "header \(name)") }
        for line in f.proxyLog.all + good.proxyLog.all {
            #expect(!line.contains(ProxyFixture.token) && !line.contains("wrong-token-value"), "log: \(line)")
        }
    }

    @Test func unreachableOriginIs502() async throws {
        let log = Collected()
        let scratch = try TempFolder("proxy", create: false), dir = scratch.url
        // Port 9 on loopback (discard) is closed on test machines: connections are refused.
        let proxy = try ProxyFixture.makeProxy(origin: URL(string: "http://127.0.0.1:9/dav")!, token: "t", cacheDir: dir,
                                               maxCacheSize: 1 << 20, window: 1 << 20, log: log)
        try proxy.start()
        defer { proxy.stop() }
        #expect(try await curl([proxy.baseURL + "/a.mp4"]).status == 502)
        #expect(log.all.contains { $0.contains("unreachable") })
    }

    @Test func evictionKeepsTheCacheUnderItsLimit() async throws {
        let f = try ProxyFixture(maxCacheSize: 1 << 20)
        let a = try randomBytes(700_000), b = try randomBytes(700_000)
        try f.put("a.bin", a)
        try f.put("b.bin", b)
        #expect(try await curl([f.url("a.bin")]).body == a)
        #expect(try await curl([f.url("b.bin")]).body == b)
        #expect(f.proxy.loader.cache.usedBytes <= 1 << 20)
        let before = f.originLog.bytesOut
        // a was least recently used, so it went: playing it again fetches it again, correctly.
        #expect(try await curl([f.url("a.bin")]).body == a)
        #expect(f.originLog.bytesOut > before)
        #expect(f.proxy.loader.cache.usedBytes <= 1 << 20)
        #expect(f.proxyLog.all.contains { $0.contains("evicting") })
    }
}

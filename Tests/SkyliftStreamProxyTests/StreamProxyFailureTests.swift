import Foundation
import SkyliftRangeCache
import SkyliftCore
import SkyliftStreamProxy
import TestProbes
import Testing

@Suite struct StreamProxyFailureTests {
    func proxy(for origin: FaultyOrigin, log: Collected, dir: URL) throws -> StreamProxy {
        let p = try ProxyFixture.makeProxy(origin: origin.base, token: "t", cacheDir: dir, maxCacheSize: 1 << 30,
                                           window: 1 << 20, log: log)
        try p.start()
        return p
    }

    @Test func originDyingMidTransferIsAnErrorForThePlayer() async throws {
        let data = try randomBytes(2_000_000)
        let origin = try FaultyOrigin(data: data, fault: .cut(after: 300_000))
        defer { origin.stop() }
        let scratch = try TempFolder("proxy", create: false), dir = scratch.url
        let log = Collected()
        let p = try proxy(for: origin, log: log, dir: dir)
        defer { p.stop() }
        let r = try await curl([p.baseURL + "/v.mp4"])
        // curl 18: the body ended before its Content-Length. Never a silently short 200.
        #expect(r.exit == 18)
        #expect(r.status == 200)
        #expect(r.body.count < data.count)
        #expect(r.body == Array(data[0 ..< r.body.count]))
        #expect(log.all.contains { $0.contains("failed mid-response") })
    }

    @Test func stoppingWakesPlayersWaitingForBytes() async throws {
        let origin = try FaultyOrigin(data: try randomBytes(500_000), fault: .stall)
        defer { origin.stop() }
        let scratch = try TempFolder("proxy", create: false), dir = scratch.url
        let p = try proxy(for: origin, log: Collected(), dir: dir)
        async let player = curl([p.baseURL + "/v.mp4"])
        // Let the player's request reach the point where it waits for the stalled origin.
        try await Task.sleep(for: .milliseconds(500))
        p.stop()
        let r = try await player
        #expect(r.exit != 0)
        #expect(r.body.isEmpty)
    }
}

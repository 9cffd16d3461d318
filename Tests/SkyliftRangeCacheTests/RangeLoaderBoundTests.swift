import Foundation
import SkyliftRangeCache
import SkyliftCore
import Testing

/// The loader's table of resources is bounded: a client asking ever new URLs cannot grow the process
/// (issue 10, item 4), while resources in use are never dropped.
@Suite struct RangeLoaderBoundTests {
    let key: HTTPHeaders = [ScriptedOrigin.requiredHeader.0: ScriptedOrigin.requiredHeader.1]

    @Test func idleResourcesBeyondTheBoundAreForgotten() async throws {
        let data = patternBytes(70_000, seed: 40)
        let origin = try ScriptedOrigin(bytes: data)
        let f = try LoaderFixture(headers: key) { $0.maxIdleResources = 8; $0.revalidateAfter = 600 }
        // One resource stays busy: a reader holds it the whole time.
        let busy = try await f.loader.open(origin.url)
        let cursor = busy.cursor(ByteRange(offset: 0, length: 70_000))
        for i in 0 ..< 60 {
            let url = URL(string: origin.url.absoluteString + "?n=\(i)")!
            #expect(try await f.read(url, ByteRange(offset: Int64(i), length: 100)) == Array(data[i ..< i + 100]))
            // The bound, plus the busy one, the one just opened, and the previous one if its download is
            // still being wound up.
            #expect(f.loader.resourceCount <= 8 + 3)
        }
        // The busy resource is still the one the table hands out: its description is fresh, so reading it
        // again costs one GET and no HEAD.
        let before = origin.requests.load(ordering: .relaxed)
        #expect(try await f.read(origin.url, ByteRange(offset: 10, length: 10)) == Array(data[10 ..< 20]))
        #expect(origin.requests.load(ordering: .relaxed) - before <= 1)
        cursor.close()
        // Forgotten resources are described again and still read correctly.
        #expect(try await f.read(URL(string: origin.url.absoluteString + "?n=0")!, ByteRange(offset: 0, length: 70_000)) == data)
    }

    @Test func resourcesIdlePastTheTimeoutAreForgotten() async throws {
        let data = patternBytes(10_000, seed: 41)
        let origin = try ScriptedOrigin(bytes: data)
        let f = try LoaderFixture(headers: key) { $0.idleResourceTimeout = 0 }
        for i in 0 ..< 20 {
            let url = URL(string: origin.url.absoluteString + "?t=\(i)")!
            #expect(try await f.read(url, ByteRange(offset: 0, length: 10_000)) == data)
        }
        // Each new URL swept the idle ones before it.
        #expect(f.loader.resourceCount <= 2)
    }
}

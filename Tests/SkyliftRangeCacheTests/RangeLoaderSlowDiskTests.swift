import Dispatch
import Foundation
@testable import SkyliftRangeCache
import SkyliftCore
import Testing

/// One resource's slow cache write must not hold up another resource (issue 27). The slow part is real: the
/// resource's own key lock, which every flush and map replacement of that resource runs under, is held by
/// another thread (as a commit stuck in `fdatasync` on a slow disk would hold it), so the loader's download
/// of that resource blocks inside `RangeCache.commit` on one of the loader's threads.
@Suite struct RangeLoaderSlowDiskTests {
    let key: HTTPHeaders = [ScriptedOrigin.requiredHeader.0: ScriptedOrigin.requiredHeader.1]

    @Test(.timeLimit(.minutes(1))) func aBlockedCommitOfOneResourceDoesNotHoldUpAnother() async throws {
        let data = patternBytes(600_000, seed: 27)
        let origin = try ScriptedOrigin(bytes: data)
        let f = try LoaderFixture(headers: key)
        let slow = URL(string: origin.url.absoluteString + "?r=slow")!
        let fast = URL(string: origin.url.absoluteString + "?r=fast")!
        let slowKey = CacheKey(url: slow).value
        // Described (its data file made) first: the key lock is then held only against its flushes.
        _ = try await f.loader.open(slow)

        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            f.cache.keyLocks.withLock(slowKey) {
                held.signal()
                release.wait()
            }
        }
        await Self.wait(for: held)
        let slowRead = Task { try await f.read(slow, ByteRange(offset: 0, length: Int64(data.count))) }
        // The slow resource's download has reached its commit and waits there, on a loader thread.
        while f.cache.keyLocks.users(of: slowKey) < 2 { try await Task.sleep(for: .milliseconds(5)) }

        let other = try await f.read(fast, ByteRange(offset: 0, length: Int64(data.count)))
        #expect(other == data)
        #expect(f.cache.keyLocks.users(of: slowKey) >= 2, "the slow commit was still blocked while the other resource was read")

        release.signal()
        #expect(try await slowRead.value == data)
        // Its blocks were stored all the same: a later read comes from the cache.
        let before = origin.sent.load(ordering: .relaxed)
        #expect(try await f.read(slow, ByteRange(offset: 1000, length: 5000)) == Array(data[1000 ..< 6000]))
        #expect(origin.sent.load(ordering: .relaxed) == before)
    }

    /// Waits for `semaphore` on a dispatch thread, not on the task's own.
    static func wait(for semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { done in
            DispatchQueue.global().async {
                semaphore.wait()
                done.resume()
            }
        }
    }
}

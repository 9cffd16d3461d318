import Foundation
import SkyliftHashing
import Testing
@testable import SkyliftStorageServer

/// Bodies larger than one buffer are hashed on a thread beside the connection thread (``HashRing``): the
/// record must still be the digest of every byte, in order, however the two threads interleave.
@Suite struct HashRingTests {
    /// Feeds `data` through a ring in pieces of `piece` bytes, as FileSink does, and returns its SHA-256.
    static func hashThroughRing(_ data: [UInt8], piece: Int, pauseEvery: Int = 0, budget: HashRingBudget? = nil) -> [UInt8] {
        let recorder = DigestRecorder([])
        let ring = HashRing(recorder: recorder, budget: budget)
        var buffer = ring.buffer
        var offset = 0, handed = 0
        while offset < data.count {
            let n = min(piece, buffer.count, data.count - offset)
            data.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: n)
            }
            offset += n
            buffer = ring.handOver(n)
            handed += 1
            // Now and then give the hashing thread time to drain, so both the waiting and the helping paths run.
            if pauseEvery > 0, handed % pauseEvery == 0 { Thread.sleep(forTimeInterval: 0.002) }
        }
        ring.finish()
        return recorder.sha256
    }

    @Test(arguments: [(1 << 20, 0), (1 << 20, 3), (70_001, 0), (1, 0)])
    func everyByteIsHashedInOrder(piece: Int, pauseEvery: Int) {
        let data = randomBytes(piece == 1 ? 5_000 : 9 * (1 << 20) + 12_345)
        #expect(Self.hashThroughRing(data, piece: piece, pauseEvery: pauseEvery) == Digest.hash(.sha256, data))
    }

    /// A ring the budget gives nothing extra works with its two buffers, both paths included.
    @Test(arguments: [0, 1])
    func aRingOfTwoBuffersHashesEveryByte(pauseEvery: Int) {
        let budget = HashRingBudget(extraBuffers: 0)
        let data = randomBytes(9 * (1 << 20) + 999)
        #expect(Self.hashThroughRing(data, piece: 300_000, pauseEvery: pauseEvery, budget: budget) == Digest.hash(.sha256, data))
    }

    /// The extra buffers go to the first rings; the rest get the least; a ring that ends gives its extra back.
    @Test func theBudgetIsSharedAndGivenBack() {
        let budget = HashRingBudget(extraBuffers: 3)
        var rings = (0 ..< 3).map { _ in HashRing(recorder: DigestRecorder([]), budget: budget) }
        #expect(rings.map(\.count) == [HashRing.fullCount, HashRing.leastCount + 1, HashRing.leastCount])
        #expect(budget.unused == 0)
        rings[0].finish()
        rings.removeFirst()
        // The hashing thread lets go of its ring when it ends, so the buffers come back a moment later.
        let deadline = Date().addingTimeInterval(10)
        while budget.unused < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(budget.unused == 2)
        for ring in rings { ring.finish() }
    }

    @Test func aRingClosedWithBuffersQueuedLetsItsThreadEnd() {
        let recorder = DigestRecorder([])
        weak var weakRing: HashRing?
        do {
            let ring = HashRing(recorder: recorder, budget: nil)
            weakRing = ring
            for _ in 0 ..< ring.count - 1 { _ = ring.handOver(HashRing.bufferSize) }
            ring.close()
        }
        // The thread holds the ring until it has hashed what was queued and seen it closed.
        let deadline = Date().addingTimeInterval(10)
        while weakRing != nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(weakRing == nil)
    }

    /// The real server: a PUT and a COPY of a 9 MiB body (the first 512 KiB hashed inline, the rest on the
    /// ring), a PUT whose Content-Digest matches, and one whose Content-Digest does not.
    @Test func largeBodiesAreRecordedWhole() throws {
        let f = try ServerFixture()
        let data = randomBytes(9 * (1 << 20) + 4_321)
        try StoredDigestTests.put(f, "/dav/big.bin", data)
        #expect(try StoredDigestTests.head(f, "/dav/big.bin").header("Repr-Digest") == StoredDigestTests.reprDigest(data))
        #expect(try Curl.run([f.url("/dav/big.bin")]).body == data)
        let copy = try Curl.run(["-X", "COPY", "-H", "Destination: \(f.url("/dav/copy.bin"))", f.url("/dav/big.bin")])
        #expect(copy.status == 201)
        #expect(try StoredDigestTests.head(f, "/dav/copy.bin").header("Repr-Digest") == StoredDigestTests.reprDigest(data))

        let other = randomBytes(3 * (1 << 20) + 7)
        let body = try tempFile(other)
        defer { try? FileManager.default.removeItem(at: body) }
        let wrong = "sha-256=:\(Digest.hash(.sha256, data).base64String):"
        let refused = try Curl.run(["-X", "PUT", "-H", "Content-Digest: \(wrong)", "--data-binary", "@\(body.path)", f.url("/dav/big.bin")])
        #expect(refused.status == 400)
        #expect(try Curl.run([f.url("/dav/big.bin")]).body == data, "a refused body must leave the old file")
        let right = "sha-256=:\(Digest.hash(.sha256, other).base64String):"
        let stored = try Curl.run(["-X", "PUT", "-H", "Content-Digest: \(right)", "--data-binary", "@\(body.path)", f.url("/dav/big.bin")])
        #expect(stored.status == 204)
        #expect(try StoredDigestTests.head(f, "/dav/big.bin").header("Repr-Digest") == StoredDigestTests.reprDigest(other))
    }
}

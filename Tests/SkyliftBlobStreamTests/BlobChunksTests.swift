@testable import SkyliftBlobStream
import Foundation
import SkyliftHashing
import Synchronization
import TestProbes
import Testing

/// Serves bytes and remembers the furthest byte any read asked for.
final class WatchedSource: BlobSource {
    let bytes: [UInt8]
    private let furthest = Atomic<Int64>(0)
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var name: String { "watched" }
    var furthestRequested: Int64 { furthest.load(ordering: .acquiring) }
    func open(completion: @escaping @Sendable (Result<BlobInfo, any Error>) -> Void) {
        completion(.success(BlobInfo(length: Int64(bytes.count), identity: BlobIdentity("w"))))
    }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        let n = min(buffer.count, bytes.count - Int(offset))
        furthest.max(offset + Int64(n), ordering: .acquiringAndReleasing)
        for i in 0 ..< n { buffer[i] = bytes[Int(offset) + i] }
        return n
    }
    func close() {}
}

@Suite struct BlobChunksTests {
    @Test func chunksReassembleTheFile() async throws {
        let dir = try TempFolder("blobstream")
        let (path, bytes) = try dir.randomFile("chunks.bin", count: 1_000_001)
        var got: [UInt8] = []
        var sizes: [Int] = []
        for try await chunk in BlobChunks(source: FileSource(path: path), chunkSize: 65536) {
            got += chunk
            sizes.append(chunk.count)
        }
        #expect(got == bytes)
        #expect(sizes.dropLast().allSatisfy { $0 == 65536 })
    }

    @Test func rangeOfChunks() async throws {
        let bytes = (0 ..< 100_000).map { UInt8(truncatingIfNeeded: $0 / 3) }
        var got: [UInt8] = []
        for try await chunk in BlobChunks(source: MemorySource(bytes), offset: 999, length: 50_000, chunkSize: 4096) {
            got += chunk
        }
        #expect(got == Array(bytes[999 ..< 50_999]))
        await #expect(throws: BlobStreamError.offsetOutOfRange(name: "memory", offset: 100_001, length: 100_000)) {
            for try await _ in BlobChunks(source: MemorySource(bytes), offset: 100_001) {}
        }
    }

    @Test func readAheadIsBounded() async throws {
        let source = WatchedSource([UInt8](repeating: 7, count: 10_000_000))
        var iterator = BlobChunks(source: source, chunkSize: 10_000, bufferedChunks: 3).makeAsyncIterator()
        _ = try await iterator.next()
        _ = try await iterator.next()
        // Give the reader every chance to overrun; it must stop at 2 consumed + 3 buffered (+1 in flight).
        try await Task.sleep(for: .milliseconds(200))
        #expect(source.furthestRequested <= 6 * 10_000)
        #expect(source.furthestRequested >= 2 * 10_000)
    }

    @Test func digestMatchesAOneShotHash() async throws {
        let dir = try TempFolder("blobstream")
        let (path, bytes) = try dir.randomFile("digest.bin", count: 777_777)
        let digest = try await BlobDigest.compute(of: FileSource(path: path), chunkSize: 100_000)
        #expect(digest == Digest.hash(.sha256, bytes))
        let md5 = try await BlobDigest.compute(.md5, of: FileSource(path: path), offset: 10, length: 1000)
        #expect(md5 == Digest.hash(.md5, bytes[10 ..< 1010]))
    }

    @Test func flakySourceThroughChunks() async throws {
        let bytes = (0 ..< 200_000).map { UInt8(truncatingIfNeeded: $0 &* 3) }
        var got: [UInt8] = []
        for try await chunk in BlobChunks(source: FlakySource(bytes, every: 7000, changesOnReopen: false), chunkSize: 5000) {
            got += chunk
        }
        #expect(got == bytes)
        await #expect(throws: BlobStreamError.contentChanged(name: "flaky-source")) {
            for try await _ in BlobChunks(source: FlakySource(bytes, every: 7000, changesOnReopen: true), chunkSize: 5000) {}
        }
    }

    @Test func missingFileThrowsFromTheSequence() async throws {
        await #expect(throws: BlobStreamError.notFound(path: "/nonexistent/blob")) {
            for try await _ in BlobChunks(source: FileSource(path: "/nonexistent/blob")) {}
        }
    }
}

import Foundation
import SkyliftCore
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftS3
@testable import SkyliftStorageServer
import Testing
import TestProbes

/// `S3Store` against moto and a one-node Ceph RGW: files, folders, ranges, server-side copies, journaled folder
/// moves finished after an interruption, conditional writes.
@Suite(.serialized, .timeLimit(.minutes(3))) struct S3StoreTests {
    @Test(arguments: S3Peer.allCases) func filesAndFoldersRoundTrip(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer)
        let a = pattern(1024, seed: 1), b = pattern(3000, seed: 2)
        try await store.write("a.txt", body: chunked(a, 100))
        try await store.write("photos/b.jpg", body: chunked(b, 777))
        #expect(try await store.makeFolder("empty") == .created)

        let file = try #require(try await store.stat("a.txt"))
        #expect(file.kind == .file && file.info.length == 1024 && file.info.contentType?.hasPrefix("text/plain") == true)
        #expect(file.sha256 == Digest.hash(.sha256, a) && file.info.etag != nil && file.info.lastModified != nil)
        #expect(try await store.stat("photos")?.kind == .folder)
        #expect(try await store.stat("empty")?.kind == .folder)
        #expect(try await store.stat("nothing") == nil)

        let range = try await store.read("photos/b.jpg", range: ByteRange(offset: 100, length: 200)).collect(upTo: 1 << 20)
        #expect(range == Array(b[100..<300]))
        #expect(try await store.list("").map(\.path) == ["empty", "photos", "a.txt"])
        #expect(try await store.list("empty").isEmpty)
        #expect(try await store.list("photos").map(\.path) == ["photos/b.jpg"])
        await #expect(throws: S3StoreError.self) { try await store.list("nothing") }

        try await store.copy("photos", to: "album")
        #expect(try await store.stat("album/b.jpg")?.sha256 == Digest.hash(.sha256, b))
        try await store.move("album", to: "moved/deeper")
        #expect(try await store.stat("album") == nil)
        #expect(try await store.read("moved/deeper/b.jpg").collect(upTo: 1 << 20) == b)
        try await store.move("a.txt", to: "moved/a.txt")
        #expect(try await store.stat("a.txt") == nil)
        #expect(try await store.stat("moved/a.txt")?.sha256 == Digest.hash(.sha256, a))

        try await store.delete("moved")
        try await store.delete("empty")
        #expect(try await store.stat("moved") == nil)
        #expect(try await store.stat("empty") == nil)
        #expect(try await store.list("").map(\.path) == ["photos"])
        let leftovers = try await store.client.listObjects(bucket: store.bucket, prefix: store.prefix + ".skylift/")
        #expect(leftovers.isEmpty)
    }

    @Test(arguments: S3Peer.allCases) func interruptedFolderMoveIsFinishedByRecovery(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer)
        var files: [String: [UInt8]] = [:]
        for (i, name) in ["1.jpg", "2.jpg", "3.jpg", "day/4.mov", "day/5.mov", "day/night/6.txt"].enumerated() {
            files[name] = pattern(500 + i * 100, seed: UInt8(i))
            try await store.write("trip/" + name, body: chunked(files[name]!, 256))
        }
        #expect(try await store.makeFolder("trip/empty") == .created)

        // The journal, then half the copies: as a crash would leave it.
        let record = try await store.beginMove("trip", to: "sorted/trip")
        #expect(try await store.copyRemaining(record, limit: 4) == 4)
        #expect(try await store.stat("trip/day/night/6.txt") != nil)

        // Another instance over the same bucket finishes it.
        let other = S3Store(client: store.client, location: S3Location(bucket: store.bucket, prefix: store.prefix))
        #expect(try await other.recoverInterruptedMoves() == 1)
        #expect(try await other.stat("trip") == nil)
        for (name, bytes) in files {
            #expect(try await other.read("sorted/trip/" + name).collect(upTo: 1 << 20) == bytes, "\(name)")
            #expect(try await other.stat("sorted/trip/" + name)?.sha256 == Digest.hash(.sha256, bytes))
        }
        #expect(try await other.stat("sorted/trip/empty")?.kind == .folder)
        #expect(try await other.list("sorted/trip/empty").isEmpty)
        #expect(try await other.recoverInterruptedMoves() == 0)
    }

    @Test(arguments: S3Peer.allCases) func secondMakeFolderReportsItExists(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer)
        #expect(try await store.makeFolder("shared") == .created)
        #expect(try await store.makeFolder("shared") == .alreadyExists)
        try await store.write("implicit/x.txt", body: chunked([1, 2, 3], 3))
        #expect(try await store.makeFolder("implicit") == .alreadyExists)
        await #expect(throws: S3StoreError(operation: "makeFolder", path: "implicit/x.txt", reason: .conflict)) {
            try await store.makeFolder("implicit/x.txt")
        }
        if peer == .rgw {
            // Two instances at once: the conditional write lets exactly one of them create it.
            let other = S3Store(client: store.client, location: S3Location(bucket: store.bucket, prefix: store.prefix))
            async let first = store.makeFolder("raced")
            async let second = other.makeFolder("raced")
            let answers = try await [first, second]
            #expect(answers.filter { $0 == .created }.count == 1)
        }
    }

    @Test(arguments: S3Peer.allCases) func putIfMatchWithAStaleETagFails(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer)
        guard case let .stored(first) = try await store.putIfAbsent("locks/a", Array("one".utf8)) else {
            Issue.record("the first putIfAbsent was refused")
            return
        }
        #expect(try await store.putIfAbsent("locks/a", Array("again".utf8)) == .preconditionFailed)
        guard case .stored = try await store.putIfMatch("locks/a", Array("two".utf8), etag: first) else {
            Issue.record("putIfMatch with the current ETag was refused")
            return
        }
        #expect(try await store.putIfMatch("locks/a", Array("three".utf8), etag: first) == .preconditionFailed)
        #expect(try await store.readState("locks/a")?.bytes == Array("two".utf8))
        #expect(try await store.putIfMatch("locks/missing", Array("x".utf8), etag: first) == .preconditionFailed)
        try await store.deleteState("locks/a")
        #expect(try await store.readState("locks/a") == nil)
        #expect(try await store.list("").isEmpty)
    }

    @Test(arguments: S3Peer.allCases) func writeWithAWrongSHA256LeavesTheOldObject(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer, partSize: Int(S3PartSize.smallest))
        let old = pattern(2048, seed: 7)
        try await store.write("clip.mov", body: chunked(old, 1000))
        let wrong = Digest.hash(.sha256, old)

        // One PUT, then a multipart upload (two parts): both refused before anything replaces the old file.
        for length in [4096, Int(S3PartSize.smallest) + 1024] {
            let new = pattern(length, seed: 9)
            await #expect(throws: S3StoreError(operation: "write", path: "clip.mov", reason: .digestMismatch(
                expected: wrong.hexString, actual: Digest.hash(.sha256, new).hexString))) {
                try await store.write("clip.mov", body: chunked(new, 64 << 10), expectedSHA256: wrong)
            }
            #expect(try await store.read("clip.mov").collect(upTo: 16 << 20) == old)
            #expect(try await store.stat("clip.mov")?.sha256 == Digest.hash(.sha256, old))
        }
        #expect(try await store.pendingUploads().isEmpty)
        let staged = try await store.client.listObjects(bucket: store.bucket, prefix: store.prefix + ".skylift/")
        #expect(staged.isEmpty)
    }

    @Test(arguments: S3Peer.allCases) func multipartWriteRecordsItsSHA256(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer, partSize: Int(S3PartSize.smallest))
        let bytes = pattern(Int(S3PartSize.smallest) + 3000, seed: 3)
        let digest = Digest.hash(.sha256, bytes)
        let entry = try await store.write("big/one.bin", body: chunked(bytes, 300 << 10), expectedSHA256: digest)
        #expect(entry.info.length == Int64(bytes.count) && entry.sha256 == digest)
        let stat = try #require(try await store.stat("big/one.bin"))
        #expect(stat.info.length == Int64(bytes.count) && stat.sha256 == digest)
        let tail = try await store.read("big/one.bin", range: ByteRange(offset: Int64(bytes.count - 5000), length: 5000))
        #expect(try await tail.collect(upTo: 1 << 20) == Array(bytes[(bytes.count - 5000)...]))
        #expect(try await store.pendingUploads().isEmpty)
    }

    @Test(arguments: S3Peer.allCases) func aWriteOfAnnouncedLengthStreamsItsPartsAndStoresAllOrNothing(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer, partSize: Int(S3PartSize.smallest))
        let old = pattern(4096, seed: 1)
        try await store.write("clip.mov", body: chunked(old, 1000))
        // Three parts (two whole, one short), sent as the chunks arrive; the SHA-256 is taken on the way.
        let bytes = pattern(2 * Int(S3PartSize.smallest) + 3000, seed: 4)
        let digest = Digest.hash(.sha256, bytes)
        let entry = try await store.write("big/one.bin", body: chunked(bytes, 100 << 10), length: Int64(bytes.count), expectedSHA256: digest)
        #expect(entry.info.length == Int64(bytes.count) && entry.sha256 == digest)
        #expect(try await store.read("big/one.bin").collect(upTo: 16 << 20) == bytes)
        #expect(try await store.stat("big/one.bin")?.sha256 == digest)

        // Refused, each leaving the old file and nothing staged: a wrong SHA-256, a body shorter or longer than
        // announced, a body that fails part way.
        let wrong = Digest.hash(.sha256, old)
        await #expect(throws: S3StoreError.self) {
            try await store.write("clip.mov", body: chunked(bytes, 64 << 10), length: Int64(bytes.count), expectedSHA256: wrong)
        }
        await #expect(throws: S3StoreError.self) {
            try await store.write("clip.mov", body: chunked(Array(bytes.dropLast(10)), 64 << 10), length: Int64(bytes.count))
        }
        await #expect(throws: S3StoreError.self) {
            try await store.write("clip.mov", body: chunked(bytes + [1], 64 << 10), length: Int64(bytes.count))
        }
        struct Cut: Error {}
        let failing = AsyncThrowingStream<[UInt8], any Error> { continuation in
            continuation.yield(Array(bytes.prefix(Int(S3PartSize.smallest) + 500)))
            continuation.finish(throwing: Cut())
        }
        await #expect(throws: S3StoreError.self) {
            try await store.write("clip.mov", body: failing, length: Int64(bytes.count))
        }
        #expect(try await store.read("clip.mov").collect(upTo: 16 << 20) == old)
        #expect(try await store.pendingUploads().isEmpty)
        #expect(try await store.keys(under: store.systemKey("staging/"), operation: "test", path: "").isEmpty)
    }

    @Test(arguments: S3Peer.allCases) func anAbandonedWriteIsSweptOnlyOnceItHasBeenIdleLongEnough(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer, partSize: Int(S3PartSize.smallest))
        // A write whose instance died after its first part: its record and multipart upload stay in the bucket.
        let upload = try await store.beginUpload("lost.bin", contentType: "application/octet-stream")
        let part = pattern(Int(S3PartSize.smallest), seed: 9)
        _ = try await store.client.uploadPart(bucket: store.bucket, key: upload.stagingKey, uploadId: upload.uploadId,
                                              number: 1, body: .bytes(part), sha256: Digest.hash(.sha256, part))
        // A staging object no record names, as a crash after completing one would leave.
        let orphan = store.systemKey("staging/orphan")
        _ = try await store.client.putObject(bucket: store.bucket, key: orphan, body: .bytes([1, 2, 3]),
                                             sha256: Digest.hash(.sha256, [1, 2, 3]), contentType: nil, metadata: [:],
                                             condition: .always)
        #expect(try await store.sweepAbandonedUploads(idleFor: 3600).isEmpty, "a fresh record is a live write")
        #expect(try await store.pendingUploads() == [upload])
        let swept = try await store.sweepAbandonedUploads(idleFor: 3600, now: Date().addingTimeInterval(7200))
        #expect(swept == [upload])
        #expect(try await store.pendingUploads().isEmpty)
        #expect(try await store.keys(under: store.systemKey("staging/"), operation: "test", path: "").isEmpty)
        await #expect(throws: S3Error.self) {
            _ = try await store.client.listParts(bucket: store.bucket, key: upload.stagingKey, uploadId: upload.uploadId)
        }
        #expect(try await store.stat("lost.bin") == nil)
    }

    @Test(arguments: [(10, 3), (3, 10), (5, 5), (1, 7), (50, 4)])
    func partReaderCutsAnyChunksIntoParts(chunk: Int, part: Int) async throws {
        for length in [0, 1, 9, 10, 11, 20, 49] {
            let bytes = pattern(length, seed: 5)
            var reader = PartReader(chunked(bytes, chunk).makeAsyncIterator())
            var parts: [[UInt8]] = []
            while !reader.finished { parts.append(try await reader.next(size: part)) }
            #expect(parts.flatMap { $0 } == bytes, "length \(length)")
            #expect(parts.dropLast().allSatisfy { $0.count == part }, "length \(length)")
            #expect(parts.last.map { !$0.isEmpty || length == 0 } ?? true, "length \(length): an empty last part")
        }
    }

    @Test func pathsOutsideTheStoreAreRefused() async throws {
        let client = S3Client(configuration: S3Configuration(endpoint: URL(string: "http://127.0.0.1:9")!,
                                                             credentials: S3Credentials(accessKeyID: "k", secretAccessKey: "s")),
                              transport: makeDefaultTransport())
        let store = S3Store(client: client, location: S3Location(bucket: "b", prefix: "p"))
        #expect(store.prefix == "p/")
        for path in ["../x", "a/./b", "a//b", ".skylift/moves/x", "/.skylift"] {
            await #expect(throws: S3StoreError(operation: "stat", path: path, reason: .invalidPath)) { try await store.stat(path) }
        }
        #expect(try S3Store.checked("/a/b/", operation: "stat") == "a/b")
    }
}

extension S3StoreTests {
    /// Scrub over the library: a file written through the store matches, one with its bytes changed under its
    /// record mismatches, one put by another program is recorded (its other metadata kept), folder markers and
    /// the store's own objects are not files, and the report is kept in the bucket.
    @Test(arguments: S3Peer.allCases) func scrubChecksEveryFileAgainstItsRecord(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer)
        let good = pattern(2000, seed: 3), rotten = pattern(1500, seed: 4), foreign = pattern(700, seed: 5)
        try await store.write("good.bin", body: chunked(good, 500))
        try await store.write("photos/rotten.bin", body: chunked(rotten, 500))
        #expect(try await store.makeFolder("empty") == .created)
        var flipped = rotten
        flipped[700] ^= 0xFF
        let recorded = [S3Store.sha256Field: Digest.hash(.sha256, rotten).hexString]
        _ = try await store.client.putObject(bucket: store.bucket, key: store.prefix + "photos/rotten.bin", body: .bytes(flipped),
                                             sha256: nil, contentType: nil, metadata: recorded, condition: .always)
        _ = try await store.client.putObject(bucket: store.bucket, key: store.prefix + "foreign.bin", body: .bytes(foreign),
                                             sha256: nil, contentType: "image/jpeg", metadata: ["owner": "camera"], condition: .always)

        let report = try await S3StoreScrub(store: store).run()
        #expect(report.files == 3 && report.bytes == Int64(good.count + rotten.count + foreign.count))
        #expect(report.matched == 1 && report.recorded == 1)
        #expect(report.findings.map(\.path).sorted() == ["foreign.bin", "photos/rotten.bin"])
        #expect(report.damaged.map(\.path) == ["photos/rotten.bin"] && report.damaged.first?.kind == .mismatch)
        let head = try await store.client.headObjectMetadata(bucket: store.bucket, key: store.prefix + "foreign.bin")
        #expect(head.metadata[S3Store.sha256Field] == Digest.hash(.sha256, foreign).hexString && head.metadata["owner"] == "camera")
        #expect(head.info.contentType == "image/jpeg")
        #expect(try await store.read("foreign.bin").collect(upTo: 1 << 20) == foreign)

        let kept = try #require(try await store.lastScrubReport())
        #expect(kept.files == 3 && kept.findings == report.findings && kept.root == store.location)
        // Listed two keys a page (markers and the store's own objects among them): the same verdicts.
        var paged = S3StoreScrub(store: store, record: false)
        paged.pageSize = 2
        let again = try await paged.run()
        #expect(again.files == 3 && again.matched == 2 && again.recorded == 0 && again.damaged.map(\.path) == ["photos/rotten.bin"])
    }
}

extension S3StoreTests {
    /// A resumable write begun on one instance is continued on a second (which never saw it), cut short there
    /// and resumed from the offset the bucket gives, and finished on a third: the file is exact, its SHA-256
    /// recorded, and nothing of the write is left under `.skylift/`.
    @Test(arguments: S3Peer.allCases) func aResumableWriteContinuesOnAnyInstance(peer: S3Peer) async throws {
        let mib = 1 << 20
        let first = try await StoreBucket.make(peer, partSize: 5 * mib)
        func instance() -> S3Store { S3Store(client: first.client, location: S3Location(bucket: first.bucket, prefix: first.prefix), partSize: 5 * mib) }
        let data = pattern(12 * mib + 12_345, seed: 7)
        let upload = try await first.beginResumable("videos/clip.mp4", length: Int64(data.count))
        #expect(try await first.stat("videos/clip.mp4") == nil)
        var offset = try await first.append(upload.id, at: 0, body: chunked(Array(data[0 ..< 3 * mib]), 700_000))
        #expect(offset == Int64(3 * mib))
        offset = try await first.append(upload.id, at: offset, body: chunked(Array(data[3 * mib ..< 7 * mib + mib / 2]), 1_000_003))
        #expect(offset == Int64(7 * mib + mib / 2))

        let second = instance()
        #expect(try await second.resumableState(upload.id).offset == offset)
        await #expect(throws: S3StoreError(operation: "append", path: "videos/clip.mp4", status: 409, reason: .wrongOffset(current: offset))) {
            try await second.append(upload.id, at: 100, body: chunked([1, 2, 3], 3))
        }
        // Cut short after 4 MiB: what arrived is kept, a whole part and the new tail.
        let cut = AsyncThrowingStream<[UInt8], any Error> { continuation in
            continuation.yield(Array(data[Int(offset) ..< Int(offset) + 4 * mib]))
            continuation.finish(throwing: CancellationError())
        }
        await #expect(throws: (any Error).self) { try await second.append(upload.id, at: offset, body: cut) }
        offset = try await second.resumableState(upload.id).offset
        #expect(offset == Int64(11 * mib + mib / 2))
        offset = try await second.append(upload.id, at: offset, body: chunked(Array(data[Int(offset)...]), 333_333))
        #expect(offset == Int64(data.count))
        await #expect(throws: S3StoreError.self) { try await second.append(upload.id, at: offset, body: chunked([9], 1)) }

        let third = instance()
        let entry = try await third.finishResumable(upload.id, expectedSHA256: Digest.hash(.sha256, data))
        #expect(entry.sha256 == Digest.hash(.sha256, data) && entry.info.length == Int64(data.count))
        #expect(try await third.read("videos/clip.mp4").collect(upTo: 16 * mib) == data)
        let stored = try #require(try await first.stat("videos/clip.mp4"))
        #expect(stored.sha256 == Digest.hash(.sha256, data) && stored.info.contentType == "video/mp4")
        await #expect(throws: S3StoreError.self) { try await third.resumableState(upload.id) }
        #expect(try await first.client.listObjects(bucket: first.bucket, prefix: first.prefix + ".skylift/").isEmpty)
    }

    /// Two appends from one offset at once (two instances taking PATCHes of one upload): each stores its tail only
    /// over the tail it started from, so the second to end is refused (409) and the first one's bytes stand.
    @Test(arguments: S3Peer.allCases) func ofTwoAppendsFromOneOffsetTheLaterIsRefused(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer, partSize: 5 << 20)
        let other = S3Store(client: store.client, location: S3Location(bucket: store.bucket, prefix: store.prefix), partSize: 5 << 20)
        let upload = try await store.beginResumable("race.bin", length: nil)
        #expect(try await store.append(upload.id, at: 0, body: chunked([1, 2, 3], 3)) == 3)
        let (started, startedSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        let slow = Task { try await store.append(upload.id, at: 3, body: Gated(first: Array(repeating: 7, count: 100), started: startedSignal, release: release)) }
        // The slow append has read where the upload stands and taken its first bytes; the other one now runs whole.
        for await _ in started { break }
        #expect(try await other.append(upload.id, at: 3, body: chunked(Array(repeating: 9, count: 50), 50)) == 53)
        releaseSignal.finish()
        await #expect(throws: S3StoreError(operation: "append", path: "race.bin", status: 409, reason: .conflict)) { try await slow.value }
        #expect(try await store.resumableState(upload.id).offset == 53)
        try await store.finishResumable(upload.id)
        #expect(try await store.read("race.bin").collect(upTo: 1 << 20) == [1, 2, 3] + Array(repeating: 9, count: 50))
    }

    /// A body that hands over its first chunk, says so, and ends only once `release` ends.
    struct Gated: AsyncSequence, Sendable {
        let first: [UInt8]
        let started: AsyncStream<Void>.Continuation
        let release: AsyncStream<Void>

        struct Iterator: AsyncIteratorProtocol {
            let gated: Gated
            var handed = false

            mutating func next() async -> [UInt8]? {
                if !handed {
                    handed = true
                    gated.started.yield(())
                    return gated.first
                }
                for await _ in gated.release {}
                return nil
            }
        }

        func makeAsyncIterator() -> Iterator { Iterator(gated: self) }
    }

    /// On one instance the running digest is used (no read back); an empty write, a write finished short, and
    /// one whose bytes do not have the expected SHA-256 (which is dropped, leaving the old file).
    @Test(arguments: S3Peer.allCases) func resumableWritesFinishOnlyWhenWhole(peer: S3Peer) async throws {
        let store = try await StoreBucket.make(peer, partSize: 5 << 20)
        let data = pattern(6 << 20, seed: 8)
        let open = try await store.beginResumable("a.bin", length: nil)
        try await store.append(open.id, at: 0, body: chunked(data, 1 << 20))
        #expect(try await store.finishResumable(open.id).sha256 == Digest.hash(.sha256, data))
        #expect(try await store.read("a.bin").collect(upTo: 8 << 20) == data)

        let empty = try await store.beginResumable("empty.txt", length: 0)
        #expect(try await store.finishResumable(empty.id).sha256 == Digest.hash(.sha256, [UInt8]()))
        #expect(try await store.stat("empty.txt")?.info.length == 0)

        let short = try await store.beginResumable("short.bin", length: 10)
        try await store.append(short.id, at: 0, body: chunked([1, 2, 3], 3))
        await #expect(throws: S3StoreError(operation: "finish", path: "short.bin", status: 409, reason: .lengthMismatch(expected: 10, actual: 3))) {
            try await store.finishResumable(short.id)
        }
        try await store.append(short.id, at: 3, body: chunked([4, 5, 6, 7, 8, 9, 10], 2))
        let wrong = Digest.hash(.sha256, [UInt8](repeating: 0, count: 10))
        await #expect(throws: S3StoreError.self) { try await store.finishResumable(short.id, expectedSHA256: wrong) }
        #expect(try await store.stat("short.bin") == nil)
        await #expect(throws: S3StoreError.self) { try await store.resumableState(short.id) }
    }
}

/// A fresh bucket on a running peer for one test, with a store over a prefix in it.
enum StoreBucket {
    static func make(_ peer: S3Peer, partSize: Int = 8 << 20) async throws -> S3Store {
        let service = try await Peers.shared.service(peer)
        let configuration = S3Configuration(endpoint: service.endpoint, credentials: S3Credentials(
            accessKeyID: service.accessKeyID, secretAccessKey: service.secretAccessKey), addressing: .path)
        let client = S3Client(configuration: configuration, transport: makeDefaultTransport(), timeout: 30)
        let bucket = "store-" + UUID().uuidString.lowercased().prefix(12)
        try await client.createBucket(bucket)
        return S3Store(client: client, location: S3Location(bucket: bucket, prefix: "root/"), partSize: partSize)
    }

    /// One service per peer for this test process. moto runs lenient: its signature checker refuses correct
    /// signatures of listing prefixes holding `/`, which every folder listing has. Starting blocks, so it runs
    /// on a thread of its own.
    private actor Peers {
        static let shared = Peers()
        private var services: [S3Peer: Task<S3Service, any Error>] = [:]

        func service(_ peer: S3Peer) async throws -> S3Service {
            if let task = services[peer] { return try await task.value }
            let task = Task {
                try await withCheckedThrowingContinuation { (done: CheckedContinuation<S3Service, any Error>) in
                    Thread { done.resume(with: Result { try S3Service(peer, verifying: false) }) }.start()
                }
            }
            services[peer] = task
            return try await task.value
        }
    }
}

/// `count` bytes of a pattern that differs by `seed`.
private func pattern(_ count: Int, seed: UInt8) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) ^ seed }
}

/// `bytes` as a body of chunks of `size`.
private func chunked(_ bytes: [UInt8], _ size: Int) -> AsyncStream<[UInt8]> {
    AsyncStream { continuation in
        var offset = 0
        while offset < bytes.count {
            continuation.yield(Array(bytes[offset..<min(offset + size, bytes.count)]))
            offset += size
        }
        continuation.finish()
    }
}

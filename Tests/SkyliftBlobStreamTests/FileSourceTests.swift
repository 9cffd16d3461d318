@testable import SkyliftBlobStream
import Foundation
import TestProbes
import Testing

@Suite struct FileSourceTests {
    @Test func tenThousandRandomReadsAreByteExact() throws {
        let dir = try TempFolder("blobstream")
        let (path, bytes) = try dir.randomFile("random.bin", count: 1_000_003)
        var rng = SplitMix(seed: 7)
        var stream: BlobInputStream?
        for op in 0 ..< 10_000 {
            if op % 250 == 0 {
                stream?.close()
                let blockSize = [4096, 65536, 131_072, 10007][op / 250 % 4]
                let mode: BlobInputStream.Mode = op % 500 == 0 ? .asynchronous(events: nil) : .synchronous
                let s = BlobInputStream(source: FileSource(path: path), mode: mode, blockSize: blockSize)
                s.open()
                #expect(s.streamStatus == .open)
                stream = s
            }
            guard let stream else { return }
            let offset = Int.random(in: 0 ... bytes.count, using: &rng)
            let length = Int.random(in: 0 ... 40_000, using: &rng)
            let readSize = Int.random(in: 1 ... 20_000, using: &rng)
            #expect(setOffset(stream, Int64(offset)))
            #expect((stream.property(forKey: .fileCurrentOffsetKey) as? NSNumber)?.int64Value == Int64(offset))
            let got = drain(stream, readSize: readSize, limit: length).bytes
            let expected = Array(bytes[offset ..< min(bytes.count, offset + length)])
            if got != expected {
                Issue.record("op \(op): offset \(offset) length \(length) readSize \(readSize): got \(got.count) bytes")
                return
            }
        }
        stream?.close()
    }

    @Test func missingFileNamesThePath() async throws {
        let dir = try TempFolder("blobstream")
        let path = dir.url.appendingPathComponent("nope.bin").path
        await #expect(throws: BlobStreamError.notFound(path: path)) { try await FileSource(path: path).open() }
        let stream = BlobInputStream(source: FileSource(path: path))
        stream.open()
        #expect(stream.streamStatus == .error)
        #expect(stream.streamError as? BlobStreamError == .notFound(path: path))
        #expect("\(stream.streamError!)".contains(path))
        var b = [UInt8](repeating: 0, count: 10)
        #expect(stream.read(&b, maxLength: 10) == -1)
    }

    @Test func directoryIsRejected() async throws {
        let dir = try TempFolder("blobstream")
        await #expect(throws: BlobStreamError.isDirectory(path: dir.url.path)) { try await FileSource(path: dir.url.path).open() }
    }

    @Test func fifoIsNotARegularFile() async throws {
        let dir = try TempFolder("blobstream")
        let path = dir.url.appendingPathComponent("pipe").path
        #expect(mkfifo(path, 0o600) == 0)
        await #expect(throws: BlobStreamError.notRegularFile(path: path)) { try await FileSource(path: path).open() }
    }

    // Root (which the test suite runs as) reads mode-000 files anyway, so this case can only run unprivileged.
    @Test(.enabled(if: getuid() != 0)) func unreadableFileIsPermissionDenied() async throws {
        let dir = try TempFolder("blobstream")
        let (path, _) = try dir.randomFile("secret.bin", count: 10)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: path)
        await #expect(throws: BlobStreamError.permissionDenied(path: path)) { try await FileSource(path: path).open() }
    }

    @Test func shrinkingFileFailsInsteadOfEndingShort() throws {
        let dir = try TempFolder("blobstream")
        let (path, bytes) = try dir.randomFile("shrink.bin", count: 1 << 20)
        let stream = BlobInputStream(source: FileSource(path: path), blockSize: 64 * 1024)
        stream.open()
        let first = drain(stream, readSize: 10_000, limit: 100_000)
        #expect(first.bytes == Array(bytes[0 ..< 100_000]))
        #expect(truncate(path, 200_000) == 0)
        let rest = drain(stream, readSize: 10_000)
        #expect(rest.last == -1)
        #expect(stream.streamStatus == .error)
        #expect(stream.streamError as? BlobStreamError == .contentChanged(name: path))
        #expect(first.bytes.count + rest.bytes.count < bytes.count)
    }

    @Test func fileModifiedInPlaceWhileReadingFails() throws {
        let dir = try TempFolder("blobstream")
        let (path, _) = try dir.randomFile("edit.bin", count: 300_000)
        let stream = BlobInputStream(source: FileSource(path: path), blockSize: 64 * 1024)
        stream.open()
        _ = drain(stream, readSize: 1000, limit: 1000)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seek(toOffset: 200_000)
        try handle.write(contentsOf: Data([1, 2, 3]))
        try handle.close()
        #expect(drain(stream).last == -1)
        #expect(stream.streamError as? BlobStreamError == .contentChanged(name: path))
    }

    @Test func expectedIdentityPinsTheVersion() async throws {
        let dir = try TempFolder("blobstream")
        let (path, _) = try dir.randomFile("pinned.bin", count: 1000)
        let info = try await FileSource(path: path).open()
        #expect(try await FileSource(path: path, expectedIdentity: info.identity).open() == info)
        try Data([9, 9, 9]).write(to: URL(fileURLWithPath: path))
        await #expect(throws: BlobStreamError.contentChanged(name: path)) {
            try await FileSource(path: path, expectedIdentity: info.identity).open()
        }
    }
}

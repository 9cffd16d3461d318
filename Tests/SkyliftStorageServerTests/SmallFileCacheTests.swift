#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SkyliftCore
import SkyliftHTTPServer
@testable import SkyliftStorageServer
import SkyliftSystem
import TestProbes
import Testing

/// Small files answered from memory: only while the path still names the file, unchanged, as it was read.
@Suite struct SmallFileCacheTests {
    let folder: TempFolder
    let store: Store

    init() throws {
        folder = try TempFolder("small-files")
        try FileManager.default.createDirectory(at: folder.appending("a"), withIntermediateDirectories: true)
        store = try Store(root: folder.url)
    }

    private func backend(_ cache: SmallFileCache) -> FolderBackend {
        FolderBackend(rootPath: store.rootPath, digests: store.digests, properties: DeadProperties(), space: store.space,
                      smallFiles: cache)
    }

    private func path(_ raw: String) throws -> StoragePath { try store.resolver.resolve(rawPath: raw, walking: false).get() }

    /// What a GET of the whole file gets: whether it came from memory, and its bytes.
    private func read(_ backend: FolderBackend, _ path: StoragePath) -> (fromMemory: Bool, text: String)? {
        guard case let .file(file) = backend.open(path) else { return nil }
        defer { file.close() }
        let bytes = file.smallBytes(ByteRange(offset: 0, length: file.item.size)) ?? []
        return (file is CachedFile, String(decoding: bytes, as: UTF8.self))
    }

    /// A write in place that keeps the size and puts the modification time back exactly: only `st_ctime` tells.
    private func rewriteKeepingSizeAndTime(_ url: URL, _ text: String) throws {
        let before = try FileStatus(url.path)
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
        let mtime = timespec(tv_sec: Int(before.modifiedSeconds), tv_nsec: Int(before.modifiedNanoseconds))
        var times = [mtime, mtime]
        #expect(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
        let after = try FileStatus(url.path)
        #expect(after.size == before.size && after.modifiedSeconds == before.modifiedSeconds
                && after.modifiedNanoseconds == before.modifiedNanoseconds, "the change hides from size and mtime")
    }

    /// File times advance by clock ticks; a pause longer than one makes the next change's time differ.
    private func nextTick() { usleep(30_000) }

    @Test func aRememberedFileIsServedOnlyWhileNothingChangedIt() throws {
        let backend = backend(SmallFileCache(settled: -3600))
        let url = folder.appending("a/note.txt"), target = try path("/dav/a/note.txt")
        try Data("hello world".utf8).write(to: url)
        #expect(try #require(read(backend, target)) == (false, "hello world"), "read from disk first")
        #expect(try #require(read(backend, target)) == (true, "hello world"), "then from memory")

        nextTick()
        try rewriteKeepingSizeAndTime(url, "HELLO WORLD")
        #expect(try #require(read(backend, target)) == (false, "HELLO WORLD"), "rewritten in place")
        #expect(try #require(read(backend, target)) == (true, "HELLO WORLD"))

        nextTick()
        let other = folder.appending("a/.other")
        try Data("replaced!!!".utf8).write(to: other)
        #expect(rename(other.path, url.path) == 0)
        #expect(try #require(read(backend, target)) == (false, "replaced!!!"), "replaced by a rename")
        #expect(try #require(read(backend, target)) == (true, "replaced!!!"))

        nextTick()
        let file = try FileDescriptor.open(url.path, .readOnly)
        let tagged = (try? file.setAttribute("user.skylift.test", [1], path: url.path)) != nil
        file.close()
        if tagged { #expect(try #require(read(backend, target)) == (false, "replaced!!!"), "an extended attribute changed") }

        try FileManager.default.removeItem(at: url)
        #expect(read(backend, target) == nil, "removed: missing, not remembered")
    }

    @Test func aFileChangedLatelyIsNotRemembered() throws {
        let backend = backend(SmallFileCache())
        try Data("fresh".utf8).write(to: folder.appending("a/fresh.txt"))
        let target = try path("/dav/a/fresh.txt")
        #expect(try #require(read(backend, target)) == (false, "fresh"))
        #expect(try #require(read(backend, target)) == (false, "fresh"), "its change time is not two seconds old yet")
    }

    @Test func largeFilesAndFoldersAreNotRemembered() throws {
        let backend = backend(SmallFileCache(settled: -3600))
        let big = [UInt8](repeating: 7, count: Int(FolderFile.smallBodyLimit) + 1)
        try Data(big).write(to: folder.appending("a/big.bin"))
        let target = try path("/dav/a/big.bin")
        for _ in 0 ..< 2 {
            guard case let .file(file) = backend.open(target) else { Issue.record("not a file"); return }
            #expect(!(file is CachedFile))
            file.close()
        }
        guard case .folder = backend.open(try path("/dav/a")) else { Issue.record("not a folder"); return }
    }

    @Test func rangesOfARememberedFileAreByteExact() throws {
        let backend = backend(SmallFileCache(settled: -3600))
        let content = (0 ..< 5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(content).write(to: folder.appending("a/ranges.bin"))
        let target = try path("/dav/a/ranges.bin")
        _ = read(backend, target)
        guard case let .file(file) = backend.open(target), file is CachedFile else { Issue.record("not remembered"); return }
        #expect(file.smallBytes(ByteRange(offset: 100, length: 50)) == Array(content[100 ..< 150]))
        #expect(file.smallBytes(ByteRange(offset: 4990, length: 11)) == nil, "past the end")
        guard case let .bytes(tail) = file.body(ByteRange(offset: 4000, length: 1000)) else { Issue.record("not bytes"); return }
        #expect(tail == Array(content[4000...]))

        let parts: [RangedResponse.Part] = [.text(Array("--b\r\n\r\n".utf8)), .range(ByteRange(offset: 10, length: 20)),
                                            .text(Array("\r\n--b--".utf8)), .range(ByteRange(offset: 4990, length: 10))]
        let length: Int64 = 7 + 20 + 7 + 10
        guard case let .stream(_, producer) = file.multipartBody(parts, length: length) else { Issue.record("not a stream"); return }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 9)
        loop: while true {
            let result = buffer.withUnsafeMutableBytes { producer.produce(into: $0, at: Int64(out.count)) }
            switch result {
            case let .bytes(n): out += buffer[0 ..< n]
            case .end: break loop
            default: Issue.record("the body failed"); break loop
            }
        }
        producer.close()
        #expect(out == Array("--b\r\n\r\n".utf8) + content[10 ..< 30] + Array("\r\n--b--".utf8) + content[4990...])
    }

    @Test func aPlainGetAnsweredFromMemoryHasTheHeadOfOneFromDisk() throws {
        let get = RangedGet(backend: backend(SmallFileCache(settled: -3600)))
        let url = folder.appending("a/page.txt"), target = try path("/dav/a/page.txt")
        try Data("0123456789abcdef".utf8).write(to: url)
        func ask(_ method: String = "GET", _ headers: HTTPHeaders = [:]) -> (status: Int, head: [String], body: [UInt8]) {
            let r = get.respond(HTTPRequest(method: method, path: "/dav/a/page.txt", headers: headers), path: target)
            guard case let .bytes(body) = r.body else { return (r.status, r.headers.fields.map { "\($0.name): \($0.value)" }, []) }
            return (r.status, r.headers.fields.map { "\($0.name): \($0.value)" }, body)
        }
        let fromDisk = ask(), remembered = ask(), prepared = ask()
        #expect(fromDisk.status == 200 && fromDisk.body == Array("0123456789abcdef".utf8))
        #expect(remembered.head == fromDisk.head && remembered.body == fromDisk.body)
        #expect(prepared.head == fromDisk.head && prepared.body == fromDisk.body)
        #expect(ask("HEAD").head == fromDisk.head)

        let etag = try #require(fromDisk.head.first { $0.hasPrefix("ETag: ") }).dropFirst(6)
        #expect(ask("GET", ["If-None-Match": String(etag)]).status == 304, "a precondition is still evaluated")
        #expect(ask("GET", ["if-match": "\"other\""]).status == 412)
        let range = ask("GET", ["Range": "bytes=2-4"])
        #expect(range.status == 206 && range.body == Array("234".utf8), "a range is still cut")

        nextTick()
        try rewriteKeepingSizeAndTime(url, "fedcba9876543210")
        #expect(ask().body == Array("fedcba9876543210".utf8), "a changed file's prepared head and bytes are gone with it")
    }
}

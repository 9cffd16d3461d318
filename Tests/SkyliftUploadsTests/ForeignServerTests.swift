import Foundation
import SkyliftRemotes
import SkyliftCore
import Synchronization
import TestProbes
import Testing
import TestPrograms
@testable import SkyliftUploads

/// A Python server from PyPI (installed by scripts/pip-deps.sh), started on a free port for one test.
final class PythonServer {
    let process = Process()
    let port: Int
    private let scratch: TempFolder
    let root: URL
    private let lifeline = Pipe()

    init(script: String, python: URL) throws {
        scratch = try TempFolder("peer")
        root = scratch.url
        let out = Pipe()
        // The peer exits when this pipe closes, so a test process that dies leaves no server behind.
        process.standardInput = lifeline
        process.executableURL = python
        process.arguments = ["-c", Self.exitWithParent + script, root.path]
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = Self.firstLine(out.fileHandleForReading)
        let words = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard words.first == "READY", words.count > 1, let p = Int(words[1]) else {
            kill(process.processIdentifier, SIGKILL)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "peer server did not start (is its PyPI package installed?)"])
        }
        port = p
    }

    /// Reads up to the first newline on a thread of its own, never blocking the test's concurrency pool.
    static func firstLine(_ handle: FileHandle) -> Data {
        let result = Mutex(Data())
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            result.withLock { $0 = line }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 30)
        return result.withLock { $0 }
    }

    deinit {
        // SIGKILL: children of Foundation's Process may start with SIGTERM blocked.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static let exitWithParent = """
    import os, sys, threading
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()

    """

    /// aiohttp-tus: tus 1.0 (creation, termination) on /files, finished uploads land in the root by file name.
    static let aiohttpTus = """
    import sys, asyncio, pathlib
    from aiohttp import web
    from aiohttp_tus import setup_tus
    async def main():
        app = setup_tus(web.Application(client_max_size=1 << 30), upload_path=pathlib.Path(sys.argv[1]), upload_url="/files")
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        print("READY", site._server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Event().wait()
    asyncio.run(main())
    """

    /// WsgiDAV on cheroot: WebDAV class 1 and 2 over the root, anonymous.
    static let wsgidav = """
    import sys, logging
    from cheroot import wsgi
    from wsgidav.wsgidav_app import WsgiDAVApp
    logging.disable(logging.CRITICAL)
    app = WsgiDAVApp({"provider_mapping": {"/": sys.argv[1]}, "simple_dc": {"user_mapping": {"*": True}},
                      "verbose": 0, "logging": {"enable": False}})
    server = wsgi.Server(("127.0.0.1", 0), app)
    server.prepare()
    print("READY", server.bind_addr[1], flush=True)
    server.serve()
    """
}

@Suite(.serialized) struct ForeignServerTests {
    @Test func tusServerNoOneHereWrote() async throws {
        let peer = try PythonServer(script: PythonServer.aiohttpTus, python: TestPrograms.python("aiohttp", "aiohttp_tus"))
        let dir = try TempFolder("uploads")
        let file = try dir.file("holiday.mp4", count: 700_000, seed: 3)
        let remote = try await RemoteDiscovery(http: remoteHTTP()).discover(URL(string: "http://127.0.0.1:\(peer.port)/files")!)
        #expect(remote is TusRemote && !remote.capabilities.readable)
        let up = Uploader(remote: remote, store: ResumeFileStore(directory: dir.url.appendingPathComponent("state")),
                          options: fastOptions(partLength: 256 << 10))
        let result = try await up.start(try await BlobUploadSource.file(file.path), as: "holiday.mp4").result()
        #expect(result.bytesSent == 700_000)
        #expect(try Data(contentsOf: peer.root.appendingPathComponent("holiday.mp4")) == Data(testBytes(700_000, seed: 3)))
    }

    /// Parts asked of a tus server that does not offer `concatenation`: one stream, as without them.
    @Test func tusServerWithoutConcatenationTakesOneStreamWhenPartsAreAsked() async throws {
        let peer = try PythonServer(script: PythonServer.aiohttpTus, python: TestPrograms.python("aiohttp", "aiohttp_tus"))
        let dir = try TempFolder("uploads")
        let file = try dir.file("parts.bin", count: 3 << 20, seed: 6)
        let remote = try await RemoteDiscovery(http: remoteHTTP(), tusPartials: 4).discover(URL(string: "http://127.0.0.1:\(peer.port)/files")!)
        let state = TusConcatEngineTests.RecordingState(ResumeFileStore(directory: dir.url.appendingPathComponent("state")))
        var options = fastOptions(partLength: 1 << 20)
        options.tusPartials = 4
        let result = try await Uploader(remote: remote, store: state, options: options)
            .start(try await BlobUploadSource.file(file.path), as: "parts.bin").result()
        #expect(result.bytesSent == 3 << 20)
        #expect(!state.tokens.withLock { $0 }.contains { $0.hasPrefix("tus-concat") })
        #expect(try Data(contentsOf: peer.root.appendingPathComponent("parts.bin")) == Data(testBytes(3 << 20, seed: 6)))
    }

    @Test func tusServerResumesAnInterruptedUpload() async throws {
        let peer = try PythonServer(script: PythonServer.aiohttpTus, python: TestPrograms.python("aiohttp", "aiohttp_tus"))
        let dir = try TempFolder("uploads")
        let file = try dir.file("long.mov", count: 600_000, seed: 4)
        let url = URL(string: "http://127.0.0.1:\(peer.port)/files")!
        let remote = try await RemoteDiscovery(http: remoteHTTP()).discover(url)
        let store = ResumeFileStore(directory: dir.url.appendingPathComponent("state"))
        let source = try await BlobUploadSource.file(file.path)
        // First run: the source stops yielding past 200 000 bytes, as a crash mid-upload would.
        let first = Uploader(remote: remote, store: store, options: fastOptions(partLength: 200_000))
        await #expect(throws: UploadError.self) { _ = try await first.start(StoppingSource(base: source, limit: 200_000), as: "long.mov").result() }
        let (second, events) = await runCollecting(Uploader(remote: remote, store: store, options: fastOptions(partLength: 200_000)).start(source, as: "long.mov"))
        let done = try second.get()
        #expect(done.resumedFrom > 0 && done.bytesSent == 600_000 - done.resumedFrom)
        #expect(events.contains { $0.resumedOffset == done.resumedFrom })
        #expect(try Data(contentsOf: peer.root.appendingPathComponent("long.mov")) == Data(testBytes(600_000, seed: 4)))
    }

    @Test func webDAVServerNoOneHereWrote() async throws {
        let peer = try PythonServer(script: PythonServer.wsgidav, python: TestPrograms.python("wsgidav", "cheroot"))
        let dir = try TempFolder("uploads")
        let file = try dir.file("scan.tiff", count: 400_000, seed: 5)
        let remote = try await RemoteDiscovery(http: remoteHTTP()).discover(URL(string: "http://127.0.0.1:\(peer.port)/photos/2026/")!)
        #expect(remote is WebDAVRemote)
        let up = Uploader(remote: remote, store: ResumeFileStore(directory: dir.url.appendingPathComponent("state")), options: fastOptions(verify: true))
        let source = try await BlobUploadSource.file(file.path)
        let result = try await up.start(source, as: "march/scan.tiff").result()
        #expect(result.verified)
        #expect(try Data(contentsOf: peer.root.appendingPathComponent("photos/2026/march/scan.tiff")) == Data(testBytes(400_000, seed: 5)))
        // The temporary part name was moved into place, not left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: peer.root.appendingPathComponent("photos/2026/march").path) == ["scan.tiff"])
        // Same source again: skipped on size + the ETag the first upload left.
        #expect(try await up.start(source, as: "march/scan.tiff").result().skipped)
        let listed = try await remote.list("march")
        #expect(listed.map(\.name) == ["march/scan.tiff"] && listed.first?.info.length == 400_000)
        // A file given as the folder is refused by name.
        await #expect { _ = try await RemoteDiscovery(http: remoteHTTP()).discover(URL(string: "http://127.0.0.1:\(peer.port)/photos/2026/march/scan.tiff")!) } throws: { error in
            if case .notAFolder = error as? RemoteError { return true }
            return false
        }
    }
}

/// A source that cannot be read past `limit`: the first run of a resume test ends there.
struct StoppingSource: UploadSource {
    let base: BlobUploadSource
    let limit: Int64
    var name: String { base.name }
    var length: Int64 { base.length }
    var identity: String { base.identity }
    func checkUnchanged() async throws { try await base.checkUnchanged() }
    func open(_ range: ByteRange) throws -> InputStream {
        guard range.offset < limit else { throw UploadError.sourceUnreadable(path: name, reason: "stopped for the test") }
        // A body that runs past the limit (tus block-checksum sends the rest of a file at once) ends early there.
        guard range.end > limit else { return try base.open(range) }
        return PartInputStream(base: try base.open(range), limit: limit - range.offset, counter: SentCounter())
    }
}

import Foundation
import TestProbes
import Testing

/// A `skylift upload`/`copy` child printing `--json` events, read line by line as they come.
final class TransferProcess {
    let process = Process()
    let stdout = Pipe()
    let stderr = Pipe()
    private var buffer = Data()

    init(_ arguments: [String], environment: [String: String] = ["PATH": "/usr/bin:/bin"], umask: String? = nil) throws {
        (process.executableURL, process.arguments) = try skyliftInvocation(arguments, umask: umask)
        process.environment = environment
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
    }

    /// The next JSON event, or nil at end of output.
    func nextEvent() -> [String: Any]? {
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<nl]
                buffer.removeSubrange(buffer.startIndex...nl)
                if let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] { return object }
                continue
            }
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Reads events until one satisfies `stop` (returned) or output ends (nil).
    func event(where stop: ([String: Any]) -> Bool) -> [String: Any]? {
        while let e = nextEvent() { if stop(e) { return e } }
        return nil
    }

    /// Every remaining event, then the exit status.
    func finish() -> ([[String: Any]], Int32) {
        var all: [[String: Any]] = []
        while let e = nextEvent() { all.append(e) }
        process.waitUntilExit()
        return (all, process.terminationStatus)
    }

    var errorText: String { String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// An embedded cloud (`skylift serve`) over a temp root, plus a temp dir for sources and state.
final class CloudFixture {
    private let scratch: TempFolder
    let dir: URL
    let root: URL
    let token = "upload-test-token"
    var serve: ServeProcess?
    var url = ""
    /// A relay in front of the server (``slowDown()``), through which uploads then go.
    var relay: FlipRelay?
    /// Where the server's access log goes, when kept (see ``requests(_:)``).
    let accessLog: URL?

    /// The root is a tmpfs of this size (``Tmpfs``), so the server's disk can really fill up.
    let rootSize: String?

    /// `accessLog`: keep the server's request log (in a file) rather than run it `--quiet`. `rootSize`: serve a
    /// tmpfs of that size (`12m`; needs root).
    init(accessLog: Bool = false, rootSize: String? = nil) throws {
        scratch = try TempFolder("up")
        dir = scratch.url
        root = try scratch.folder("root")
        self.accessLog = accessLog ? dir.appendingPathComponent("access.log") : nil
        self.rootSize = rootSize
        if let rootSize { try Tmpfs.mount(root, size: rootSize) }
        try start(listen: "127.0.0.1:0")
    }

    func start(listen: String) throws {
        let s = try ServeProcess(["--root", root.path, "--listen", listen, "--token", token] + (accessLog == nil ? ["--quiet"] : []),
                                 environment: ["PATH": "/usr/bin:/bin"], errors: accessLog)
        let lines = s.lines(3)
        url = lines.first { $0.hasPrefix("  url:") }?.replacingOccurrences(of: "  url:   ", with: "") ?? ""
        serve = s
    }

    /// host:port of the running server.
    var listen: String { URL(string: url).map { "\($0.host ?? ""):\($0.port ?? 0)" } ?? "" }

    func stop() { _ = serve?.terminate(); serve = nil }

    /// Sends uploads through a relay that passes about 64 MiB/s, so a kill lands mid-body on any machine.
    func slowDown() throws {
        relay = try FlipRelay(upstream: UInt16(URL(string: url)?.port ?? 0), pause: 1000)
    }

    /// Where uploads go: the server, or the relay in front of it.
    var uploadBase: String {
        guard let relay, var c = URLComponents(string: url) else { return url }
        c.port = Int(relay.port)
        return c.string ?? url
    }

    /// The access log's lines for requests with `method` so far (empty without ``accessLog``).
    func requests(_ method: String) -> [String] {
        guard let accessLog, let text = try? String(contentsOf: accessLog, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init).filter { $0.contains(" \(method) /") || $0.hasPrefix("\(method) /") }
    }

    /// A file of random bytes.
    func source(_ name: String, mib: Int) throws -> URL {
        let u = dir.appendingPathComponent(name)
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        try random.readData(ofLength: mib << 20).write(to: u)
        return u
    }

    func upload(_ file: URL, folder: String, extra: [String] = []) throws -> TransferProcess {
        try TransferProcess(["upload", file.path, "--to", uploadBase + folder, "--token", token, "--state", dir.appendingPathComponent("state").path,
                             "--json", "--part-size", "256K"] + extra)
    }

    /// Waits until the server durably holds `blocks` blocks of a tus `block-checksum` upload (its `.blocks`
    /// files, 4 bytes of CRC-32C a block), or a resume record says the server confirmed a part, so a kill lands mid-upload. False if
    /// neither happens within 30 s.
    func waitForConfirmedPart(blocks: Int = 1) -> Bool {
        let records = dir.appendingPathComponent("state/uploads")
        let uploads = root.appendingPathComponent(".skylift-uploads")
        for _ in 0..<30_000 {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? [] where name.hasSuffix(".blocks") {
                let size = (try? FileManager.default.attributesOfItem(atPath: uploads.appendingPathComponent(name).path))?[.size] as? Int ?? 0
                if size >= 4 * blocks { return true }
            }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: records.path)) ?? [] where name.hasSuffix(".json") {
                if let data = try? Data(contentsOf: records.appendingPathComponent(name)),
                   let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                   int(object["confirmedOffset"]) > 0, object["completed"] as? Bool == false {
                    return true
                }
            }
            usleep(1000)
        }
        return false
    }

    deinit {
        stop()
        if rootSize != nil { Tmpfs.unmount(root) }
    }
}

func int(_ v: Any?) -> Int64 { (v as? NSNumber)?.int64Value ?? -1 }

@Suite(.serialized) struct UploadProcessTests {
    @Test func killedClientResumesFromTheServerOffset() throws {
        let cloud = try CloudFixture()
        try cloud.slowDown()
        let file = try cloud.source("clip.bin", mib: 32)
        let total = Int64(32 << 20)
        let first = try cloud.upload(file, folder: "clips/")
        try #require(cloud.waitForConfirmedPart(), "no part was confirmed")
        first.kill9()
        // A killed client's socket closes gracefully: what it had written into loopback buffers (several MiB)
        // would still reach the server, whose PATCH then runs on beside the second run's, which can then be
        // refused and sent again (a fresh-clone CI run sent 2.75 MiB twice). Cut it, as a dead client's link would be.
        try #require(cloud.relay).cut()
        #expect(!FileManager.default.fileExists(atPath: cloud.root.appendingPathComponent("clips/clip.bin").path))

        let second = try cloud.upload(file, folder: "clips/")
        let (events, status) = second.finish()
        #expect(status == 0)
        let resumed = try #require(events.first { $0["event"] as? String == "resumed" })
        let from = int(resumed["from"])
        #expect(from > 0 && from < total)
        let done = try #require(events.first { $0["event"] as? String == "done" })
        // This run sent only what the server did not hold: at most one part was in flight at the kill.
        #expect(int(done["sent"]) == total - from, "\(events.compactMap { $0["event"] as? String })")
        #expect(FileManager.default.contentsEqual(atPath: file.path, andPath: cloud.root.appendingPathComponent("clips/clip.bin").path))
    }

    @Test func serverRestartMidUploadIsRetried() throws {
        let cloud = try CloudFixture()
        try cloud.slowDown()
        let file = try cloud.source("big.bin", mib: 32)
        let up = try cloud.upload(file, folder: "r/")
        try #require(cloud.waitForConfirmedPart(), "no part was confirmed")
        let listen = cloud.listen
        cloud.stop()
        try cloud.start(listen: listen)
        let (events, status) = up.finish()
        #expect(status == 0, "\(up.errorText)")
        #expect(events.contains { $0["event"] as? String == "retried" })
        #expect(events.last?["event"] as? String == "done")
        #expect(FileManager.default.contentsEqual(atPath: file.path, andPath: cloud.root.appendingPathComponent("r/big.bin").path))
    }

    @Test func sourceModifiedDuringUploadFailsAndLeavesNothing() throws {
        let cloud = try CloudFixture()
        let file = try cloud.source("moving.bin", mib: 32)
        let up = try cloud.upload(file, folder: "m/")
        // Changed once the upload has started (its identity was taken before `started`).
        try #require(up.event { $0["event"] as? String == "started" } != nil)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("more".utf8))
        try handle.close()
        let (events, status) = up.finish()
        #expect(status == 1)
        let failed = try #require(events.first { $0["event"] as? String == "failed" })
        #expect(failed["error"] as? String == "\(file.path): source modified during upload; the partial upload was discarded")
        #expect(!FileManager.default.fileExists(atPath: cloud.root.appendingPathComponent("m/moving.bin").path))
        // A new run with the changed file starts over and completes.
        let again = try cloud.upload(file, folder: "m/")
        let (_, status2) = again.finish()
        #expect(status2 == 0)
        #expect(FileManager.default.contentsEqual(atPath: file.path, andPath: cloud.root.appendingPathComponent("m/moving.bin").path))
    }

    @Test func copyStreamsAnHTTPObjectIntoAFolder() throws {
        let cloud = try CloudFixture()
        let original = try cloud.source("orig.bin", mib: 3)
        try FileManager.default.createDirectory(at: cloud.root.appendingPathComponent("src"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: original, to: cloud.root.appendingPathComponent("src/movie.bin"))
        let copy = try TransferProcess(["copy", cloud.url + "src/movie.bin", cloud.url + "dst/", "--source-header", "Authorization: Bearer \(cloud.token)",
                                        "--token", cloud.token, "--state", cloud.dir.appendingPathComponent("state").path, "--json", "--verify"])
        let (events, status) = copy.finish()
        #expect(status == 0, "\(copy.errorText)")
        let done = try #require(events.last)
        #expect(done["event"] as? String == "done" && done["verified"] as? Bool == true)
        #expect(FileManager.default.contentsEqual(atPath: original.path, andPath: cloud.root.appendingPathComponent("dst/movie.bin").path))
        // A source that needs the token fails clearly without it.
        let denied = try TransferProcess(["copy", cloud.url + "src/movie.bin", cloud.url + "dst2/", "--token", cloud.token,
                                          "--state", cloud.dir.appendingPathComponent("state").path])
        let (_, deniedStatus) = denied.finish()
        #expect(deniedStatus == 1)
        #expect(denied.errorText.contains("src/movie.bin"))
    }
}

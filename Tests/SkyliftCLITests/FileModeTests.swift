import Foundation
import TestProbes
import Testing

/// Every folder and file under `dir` (and `dir` itself) with its permission bits.
func modes(under dir: URL) throws -> [(path: String, isFolder: Bool, mode: Int)] {
    var out: [(String, Bool, Int)] = []
    func visit(_ url: URL) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        let isFolder = attributes[.type] as? FileAttributeType == .typeDirectory
        out.append((url.path, isFolder, (attributes[.posixPermissions] as? Int) ?? -1))
        if isFolder {
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path) { try visit(url.appendingPathComponent(name)) }
        }
    }
    try visit(dir)
    return out
}

/// Expects folders 0700 and files 0600 under `dir`; returns how many files there were.
@discardableResult
func expectPrivate(_ dir: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
    let all = try modes(under: dir)
    for entry in all {
        #expect(entry.mode == (entry.isFolder ? 0o700 : 0o600), "\(entry.path): \(String(entry.mode, radix: 8))", sourceLocation: sourceLocation)
    }
    return all.filter { !$0.isFolder }.count
}

/// Secrets and state are created with their final mode (0600 files, 0700 folders), even when the process runs
/// with umask 000, which would leave anything created "normally" and chmod-ed later world-readable in between
/// (issue 10, item 6).
@Suite(.serialized) struct FileModeTests {
    @Test func serveDefaultStoreAndTokenFile() throws {
        let scratch = try TempFolder("modes"), home = scratch.url
        let serve = try ServeProcess(["--listen", "127.0.0.1:0", "--quiet"], environment: ["HOME": home.path, "PATH": "/usr/bin:/bin"], umask: "000")
        #expect(serve.lines(3).contains { $0.hasPrefix("  token: ") && $0.contains("(new; saved in") })
        #expect(try expectPrivate(home.appendingPathComponent(".local")) >= 1)  // the token, and the web app's session state
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(".local/share/skylift/store.token").path))
        #expect(serve.terminate() == 0)
    }

    @Test func proxyCacheFiles() throws {
        let origin = try RecordingOrigin()
        defer { origin.stop() }
        let cache = origin.base.appendingPathComponent("cache/nested")
        let proxy = try ProxyProcess(["--origin", origin.prefixURL, "--token", origin.token, "--listen", "127.0.0.1:0",
                                      "--cache-dir", cache.path, "--quiet"], umask: "000")
        let base = try proxy.url()
        #expect(try fetch(base + "/clip.bin") == Array("clip bytes".utf8))
        proxy.process.terminate()
        #expect(proxy.finish().status == 0)
        let files = try expectPrivate(origin.base.appendingPathComponent("cache"))
        // FORMAT, lock, and the clip's data and map.
        #expect(files == 4)
    }

    @Test func uploadResumeStateAndWatchQueue() throws {
        let origin = try RecordingOrigin()
        defer { origin.stop() }
        let tokenFile = try secretFile(origin.base, "token", origin.token, mode: 0o600)
        let dav = origin.server.baseURL + "/dav/media/"
        let clip = origin.base.appendingPathComponent("up.bin")
        try Data(repeating: 7, count: 300_000).write(to: clip)

        let state = origin.base.appendingPathComponent("state/upload")
        let upload = try TransferProcess(["upload", clip.path, "--to", dav, "--token-file", tokenFile, "--state", state.path, "--json"], umask: "000")
        upload.process.waitUntilExit()
        #expect(upload.process.terminationStatus == 0)
        #expect(try expectPrivate(origin.base.appendingPathComponent("state")) == 1)

        let dir = origin.base.appendingPathComponent("watched")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let queue = origin.base.appendingPathComponent("queue/q")
        let agent = try WatchProcess([dir.path, "--to", dav, "--token-file", tokenFile, "--state", queue.path, "--json", "--settle", "0.2"], umask: "000")
        #expect(agent.await("watching") != nil)
        try Data("new photo".utf8).write(to: dir.appendingPathComponent("p.jpg"))
        #expect(agent.await("uploaded") { $0["path"] as? String == "p.jpg" } != nil)
        // The queue and its WAL files exist while the agent runs.
        let names = try FileManager.default.contentsOfDirectory(atPath: queue.path)
        #expect(Set(["watch.sqlite", "watch.sqlite-wal", "watch.sqlite-shm"]).isSubset(of: Set(names)), "\(names)")
        try expectPrivate(origin.base.appendingPathComponent("queue"))
        #expect(agent.stop() == 0)
        #expect(try String(contentsOf: origin.root.appendingPathComponent("media/p.jpg"), encoding: .utf8) == "new photo")
    }
}

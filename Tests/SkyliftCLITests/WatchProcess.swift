import SkyliftAutoUpload
import SkyliftFolderWatch
import Foundation
import SkyliftCore
import SkyliftStorageServer
import Synchronization
import TestProbes
import Testing

/// A `skylift watch` child with `--json` events read line by line.
final class WatchProcess {
    let process = Process()
    private let stdout = Pipe()
    private let stderr = Pipe()
    private var pending = Data()

    init(_ arguments: [String], environment: [String: String] = ["PATH": "/usr/bin:/bin"], umask: String? = nil) throws {
        (process.executableURL, process.arguments) = try skyliftInvocation(["watch"] + arguments, umask: umask)
        process.environment = environment
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
    }

    /// Reads events until one has `event == name` and satisfies `where`; nil when output ended first. After
    /// `seconds` without that event the process is killed (its output then ends): a test fails instead of hanging.
    func await(_ name: String, within seconds: Double = 300, where test: ([String: Any]) -> Bool = { _ in true }) -> [String: Any]? {
        let pid = process.processIdentifier
        let deadline = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: deadline)
        defer { deadline.cancel() }
        while true {
            while let newline = pending.firstIndex(of: 10) {
                let line = pending[pending.startIndex..<newline]
                pending.removeSubrange(pending.startIndex...newline)
                if let event = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
                   event["event"] as? String == name, test(event) {
                    return event
                }
            }
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            pending.append(chunk)
        }
    }

    /// The events not read yet, up to the end of the output (call once the process has ended).
    func remaining() -> [[String: Any]] {
        pending.append(stdout.fileHandleForReading.readDataToEndOfFile())
        defer { pending.removeAll() }
        return pending.split(separator: 10).compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    /// Sends `signal` and returns the exit status.
    func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    var errorText: String { String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
}

/// An embedded cloud in the test process whose access log can act on requests as they finish.
final class WatchCloud: Sendable {
    static let token = "watch-cli-token"
    private let scratch: TempFolder
    let base: URL
    let server: StorageServer
    let log = RequestLog()

    /// The store is a tmpfs of this size (``Tmpfs``), so the server's disk can really fill up.
    let storeSize: String?

    /// `storeSize`: serve a tmpfs of that size (`12m`; needs root).
    init(storeSize: String? = nil) throws {
        scratch = try TempFolder("watch-cli")
        base = scratch.url
        for sub in ["store", "dir", "state"] { try scratch.folder(sub) }
        self.storeSize = storeSize
        if let storeSize { try Tmpfs.mount(base.appendingPathComponent("store"), size: storeSize) }
        let config = StorageConfiguration(root: base.appendingPathComponent("store"), token: Self.token,
                                          accessLog: Logger(label: "access") { [log] line in log.record(line) })
        server = try StorageServer(configuration: config, host: "127.0.0.1", port: 0)
        try server.start()
    }

    var url: String { server.baseURL + "/dav/" }
    var dir: URL { base.appendingPathComponent("dir") }
    var state: URL { base.appendingPathComponent("state") }
    func stored(_ path: String) -> URL { base.appendingPathComponent("store").appendingPathComponent(path) }
    func count(_ method: String) -> Int { log.lines.withLock { $0.filter { $0.hasPrefix(method + " ") }.count } }

    /// Waits (up to 30 s) until the server has kept at least one 4 MiB block of a tus upload (its `.blocks` ledger
    /// holds a CRC-32C, 4 bytes): with `block-checksum` the file goes in one PATCH, so a count of PATCHes cannot
    /// time a kill.
    func waitForHeldBlock() -> Bool {
        let uploads = stored(".skylift-uploads")
        for _ in 0..<30_000 {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? [] where name.hasSuffix(".blocks") {
                let size = (try? FileManager.default.attributesOfItem(atPath: uploads.appendingPathComponent(name).path))?[.size] as? Int ?? 0
                if size >= 4 { return true }
            }
            usleep(1000)
        }
        return false
    }

    func watch(_ extra: [String] = []) throws -> WatchProcess {
        try WatchProcess([dir.path, "--to", url, "--token", Self.token, "--state", state.path, "--json",
                          "--settle", "0.2", "--part-size", "1M"] + extra)
    }

    deinit {
        server.stop()
        if storeSize != nil { Tmpfs.unmount(base.appendingPathComponent("store")) }
    }
}

/// Access-log lines, plus a hook run on each as it is logged.
final class RequestLog: Sendable {
    let lines = Mutex<[String]>([])
    let hook = Mutex<(@Sendable (String) -> Void)?>(nil)

    func record(_ line: String) {
        lines.withLock { $0.append(line) }
        hook.withLock { $0 }?(line)
    }
}

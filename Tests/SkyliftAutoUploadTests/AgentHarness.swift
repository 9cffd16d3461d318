import Foundation
import SkyliftFolderWatch
import SkyliftCore
import SkyliftStorageServer
import Synchronization
import TestProbes
import SkyliftUploads
@testable import SkyliftAutoUpload

/// A real embedded StorageServer on a free loopback port, a watched temp folder and a state folder.
final class AgentHarness: Sendable {
    static let token = "watch-test-token"
    private let scratch: TempFolder
    let watched: URL
    let state: URL
    let store: URL
    let accessLog = Lines<String>()
    private let server = Mutex<StorageServer?>(nil)

    init() throws {
        scratch = try TempFolder("agent")
        watched = try scratch.folder("watched")
        state = try scratch.folder("state")
        store = try scratch.folder("store")
        let config = StorageConfiguration(root: store, token: Self.token, accessLog: Logger(label: "access") { [accessLog] in accessLog.append($0) })
        let s = try StorageServer(configuration: config, host: "127.0.0.1", port: 0)
        try s.start()
        server.withLock { $0 = s }
    }

    var davURL: URL { URL(string: server.withLock { $0!.baseURL } + "/dav/")! }

    /// Starts an agent; returns it with its collected events and the task running it. With `gate`, every
    /// upload waits at the gate's points.
    func startAgent(token: String = AgentHarness.token, settle: Double = 0.3, maxWait: Double = 30, mirrorDeletes: Bool = false,
                    partLength: Int64 = 64 << 20, gate: UploadGate? = nil) async throws -> RunningAgent {
        let engine = try await EngineUploader.connect(to: davURL, token: token, options: UploadOptions(partLength: partLength))
        let uploader: any FileUploading = gate.map { GatedUploader(engine: engine, gate: $0) } ?? engine
        let config = WatchAgentConfiguration(watch: WatchConfiguration(root: watched, settle: settle, maxWait: maxWait),
                                             stateDirectory: state, jobs: 2, mirrorDeletes: mirrorDeletes,
                                             retry: .init(maxAttempts: .max, baseDelay: 0.2, maxDelay: 1))
        let agent = try WatchAgent(configuration: config, uploader: uploader)
        return RunningAgent(agent)
    }

    func write(_ path: String, _ bytes: [UInt8]) throws {
        let url = watched.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    func stored(_ path: String) -> [UInt8]? {
        (try? Data(contentsOf: store.appendingPathComponent(path))).map { [UInt8]($0) }
    }

    /// Whether a tus upload in the store's upload folder has at least one block recorded (block-checksum; the
    /// engine asks for CRC-32C, 4 bytes a block).
    var holdsARecordedBlock: Bool {
        let uploads = store.appendingPathComponent(".skylift-uploads")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? []
        return names.contains { name in
            name.hasSuffix(".blocks")
                && ((try? FileManager.default.attributesOfItem(atPath: uploads.appendingPathComponent(name).path))?[.size] as? Int ?? 0) >= 4
        }
    }

    /// tus creations (POST) seen by the server.
    var creations: Int { accessLog.all.filter { $0.hasPrefix("POST ") }.count }
    /// Requests that carry file bytes or start an upload (POST, PATCH, PUT) seen by the server.
    var writes: Int { accessLog.all.filter { $0.hasPrefix("POST ") || $0.hasPrefix("PATCH ") || $0.hasPrefix("PUT ") }.count }

    deinit { server.withLock { $0?.stop() } }
}

/// An agent running in a task, with its events collected.
final class RunningAgent: Sendable {
    let agent: WatchAgent
    let events = Lines<AgentEvent>()
    let task: Task<AutoUploadError?, Never>
    private let reader: Task<Void, Never>

    init(_ agent: WatchAgent) {
        self.agent = agent
        let stream = agent.events
        let sink = events
        reader = Task { for await e in stream { sink.append(e) } }
        task = Task { () async -> AutoUploadError? in
            do throws(AutoUploadError) {
                try await agent.run()
                return nil
            } catch {
                return error
            }
        }
    }

    func uploaded(_ path: String) -> Int {
        events.all.filter { if case let .uploaded(p, _, _) = $0 { p == path } else { false } }.count
    }

    @discardableResult
    func waitUntil(_ limit: Double = 30, _ condition: () async -> Bool) async -> Bool {
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return await condition()
    }

    /// Stops the agent and returns the error `run()` ended with, if any.
    func stop() async -> AutoUploadError? {
        agent.stop()
        let result = await task.value
        _ = await reader.value
        return result
    }
}

/// Where an upload through `GatedUploader` waits: before the engine starts it, or after the engine finished
/// it (before the agent records it), until the test opens the gate.
final class UploadGate: Sendable {
    enum Point: Sendable { case before, after }
    let point: Point
    private let state = Mutex<(reached: Bool, open: Bool)>((false, false))

    init(_ point: Point) { self.point = point }

    var reached: Bool { state.withLock { $0.reached } }
    func open() { state.withLock { $0.open = true } }

    func pass() async {
        state.withLock { $0.reached = true }
        while !state.withLock({ $0.open }) { try? await Task.sleep(for: .milliseconds(20)) }
    }
}

/// The real engine with a gate in front of or behind each upload, so a test can move a file while the agent
/// holds it as `uploading`.
struct GatedUploader: FileUploading {
    let engine: EngineUploader
    let gate: UploadGate
    var destination: String { engine.destination }

    func upload(localPath: String, as remotePath: String, expected: FileSnapshot, resume: any ResumeStore,
                report: @escaping @Sendable (UploadReport) -> Void) async throws(UploadFailure) {
        if gate.point == .before { await gate.pass() }
        try await engine.upload(localPath: localPath, as: remotePath, expected: expected, resume: resume, report: report)
        if gate.point == .after { await gate.pass() }
    }

    func delete(_ remotePath: String) async throws(UploadFailure) { try await engine.delete(remotePath) }
    func move(_ from: String, to: String) async throws(UploadFailure) { try await engine.move(from, to: to) }
}

/// Thread-safe list.
final class Lines<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    func append(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.withLock { $0 } }
}

func bytes(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
}

import Foundation
import SkyliftHashing
import SkyliftCore
import SkyliftStorageServer
import Synchronization
import Testing
import TestPrograms

/// A temp root served by a real StorageServer on a free loopback port.
final class ServerFixture: Sendable {
    static let token = "s3cret-Token-42"
    let root: URL
    let log = LogLines()
    private let server = Mutex<StorageServer?>(nil)
    let expiry: TimeInterval
    let maxSize: Int64

    let digests: Set<DigestAlgorithm>

    init(token: String? = ServerFixture.token, expiry: TimeInterval = 3600, maxSize: Int64 = 1 << 30,
         root: URL? = nil, digests: Set<DigestAlgorithm> = [.sha256]) throws {
        self.digests = digests
        self.root = root ?? FileManager.default.temporaryDirectory.appendingPathComponent("skylift-storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.root, withIntermediateDirectories: true)
        self.expiry = expiry
        self.maxSize = maxSize
        try start(token: token)
    }

    /// (Re)starts on a fresh port with the same root.
    func start(token: String? = ServerFixture.token) throws {
        var config = StorageConfiguration(root: root, token: token, tusExpiry: expiry, maxUploadSize: maxSize,
                                          accessLog: Logger(label: "access") { [log] line in log.append(line) }, limits: HTTPLimits(keepAliveTimeout: 10))
        config.digests = digests
        let s = try StorageServer(configuration: config)
        try s.start()
        server.withLock { $0 = s }
    }

    func stop() { server.withLock { $0?.stop(); $0 = nil } }

    var base: String { server.withLock { $0!.baseURL } }

    func url(_ path: String) -> String { base + path }

    func file(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// A directory outside the served root for tools' own files; removed with the fixture.
    var scratch: URL {
        let u = URL(fileURLWithPath: root.path + "-scratch")
        try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }

    func write(_ relative: String, _ bytes: [UInt8]) throws {
        let u = file(relative)
        try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: u)
    }

    deinit {
        server.withLock { $0?.stop() }
        try? FileManager.default.removeItem(at: root)
        try? FileManager.default.removeItem(atPath: root.path + "-scratch")
    }
}

/// Access-log lines collected from the server's threads.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// What curl saw: status, header fields (names lower-cased, last response only) and body.
struct CurlResult {
    var status: Int
    var headers: [String: [String]]
    var body: [UInt8]
    var exitCode: Int32

    func header(_ name: String) -> String? { headers[name.lowercased()]?.first }
    var text: String { String(decoding: body, as: UTF8.self) }
}

enum Curl {
    static let auth = ["-H", "Authorization: Bearer \(ServerFixture.token)"]

    /// Runs curl with `args` (plus auth unless `authenticated` is false).
    static func run(_ args: [String], authenticated: Bool = true, stdin: Data? = nil) throws -> CurlResult {
        let dir = FileManager.default.temporaryDirectory
        let headerFile = dir.appendingPathComponent("h-\(UUID().uuidString)")
        let bodyFile = dir.appendingPathComponent("b-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: headerFile)
            try? FileManager.default.removeItem(at: bodyFile)
        }
        let p = Process()
        p.executableURL = try TestPrograms.path("curl")
        p.arguments = ["-s", "--path-as-is", "--max-time", "30", "-D", headerFile.path, "-o", bodyFile.path,
                       "-w", "%{http_code}"] + (authenticated ? auth : []) + args
        let out = Pipe()
        p.standardOutput = out
        let input = Pipe()
        if stdin != nil { p.standardInput = input }
        try p.run()
        if let stdin {
            input.fileHandleForWriting.write(stdin)
            try input.fileHandleForWriting.close()
        }
        let code = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        var headers: [String: [String]] = [:]
        let raw = (try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""
        // With several responses (100 Continue, redirects) only the last block counts.
        let block = raw.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
        for line in block.components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name, default: []].append(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let body = (try? Data(contentsOf: bodyFile)).map { Array($0) } ?? []
        return CurlResult(status: Int(String(decoding: code, as: UTF8.self)) ?? 0, headers: headers, body: body,
                          exitCode: p.terminationStatus)
    }
}

/// Bytes no compressor or coincidence helps with: SplitMix64 from a random seed, eight bytes a step (asking
/// the system generator for every byte made multi-MiB bodies take seconds in debug builds).
func randomBytes(_ count: Int) -> [UInt8] {
    var state = UInt64.random(in: .min ... .max)
    var out = [UInt8](repeating: 0, count: count)
    out.withUnsafeMutableBytes { raw in
        var i = 0
        while i < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            for b in 0 ..< min(8, count - i) { raw[i + b] = UInt8(truncatingIfNeeded: z >> (8 * UInt64(b))) }
            i += 8
        }
    }
    return out
}

func tempFile(_ bytes: [UInt8]) throws -> URL {
    let u = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString)")
    try Data(bytes).write(to: u)
    return u
}

/// Runs `program` (from `TestPrograms`) in `directory` (litmus drops its logs there), stdout and stderr
/// combined, with extra environment on top of ours.
func runTool(_ program: URL, _ arguments: [String], environment: [String: String] = [:],
             directory: URL = FileManager.default.temporaryDirectory) throws -> (out: String, status: Int32) {
    let p = Process()
    p.currentDirectoryURL = directory
    p.executableURL = program
    p.arguments = arguments
    p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), p.terminationStatus)
}

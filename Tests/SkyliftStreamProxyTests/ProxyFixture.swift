import Foundation
import SkyliftHTTPServer
import SkyliftRangeCache
import SkyliftCore
import TestProbes
import TestPrograms
import SkyliftStorageServer
import SkyliftStreamProxy
import Synchronization

/// Lines collected from any thread (proxy log, origin access log).
final class Collected: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
    /// Body bytes an access log reports (`out=N` summed).
    var bytesOut: Int64 {
        all.compactMap { $0.split(separator: " ").first { $0.hasPrefix("out=") }.flatMap { Int64($0.dropFirst(4)) } }.reduce(0, +)
    }
}

/// The embedded cloud (token auth) as origin, and a proxy in front of it that holds the token.
final class ProxyFixture: Sendable {
    static let token = "origin-secret-\(UUID().uuidString.prefix(12))"
    private let scratch: TempFolder
    let root: URL
    let cacheDir: URL
    let originLog = Collected()
    let proxyLog = Collected()
    let cloud: StorageServer
    let proxy: StreamProxy
    let maxCacheSize: Int64

    init(token: String = ProxyFixture.token, maxCacheSize: Int64 = 1 << 30, window: Int64 = 256 * 1024) throws {
        scratch = try TempFolder("proxy")
        root = try scratch.folder("cloud")
        cacheDir = scratch.appending("cache")
        let originLog = self.originLog
        cloud = try StorageServer(configuration: StorageConfiguration(root: root, token: Self.token,
                                                                      accessLog: Logger(label: "access") { originLog.append($0) }))
        try cloud.start()
        self.maxCacheSize = maxCacheSize
        proxy = try Self.makeProxy(origin: URL(string: cloud.baseURL + "/dav")!, token: token, cacheDir: cacheDir,
                                   maxCacheSize: maxCacheSize, window: window, log: proxyLog)
        try proxy.start()
    }

    static func makeProxy(origin: URL, token: String, cacheDir: URL, maxCacheSize: Int64, window: Int64,
                          log: Collected) throws -> StreamProxy {
        let cache = try RangeCache(configuration: .init(directory: cacheDir, maxSize: maxCacheSize,
                                                        logger: Logger(label: "cache", level: .trace) { log.append($0) }))
        let loader = RangeLoader(cache: cache, origin: HTTPRangeOrigin(headers: ["Authorization": "Bearer \(token)"], timeout: 10),
                                 configuration: .init(initialWindow: window, maxWindow: 4 * window, revalidateAfter: 0,
                                                      retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 0.02),
                                                      logger: Logger(label: "loader", level: .trace) { log.append($0) }))
        return StreamProxy(configuration: .init(origin: origin, port: 0, stallTimeout: 10,
                                                logger: Logger(label: "proxy", level: .trace) { log.append($0) },
                                                accessLog: Logger(label: "access") { log.append($0) }),
                           loader: loader)
    }

    deinit {
        proxy.stop()
        cloud.stop()
    }

    func put(_ name: String, _ bytes: [UInt8]) throws {
        // A new inode each time, so a replaced file always gets a new ETag.
        let tmp = root.appendingPathComponent(".tmp-" + UUID().uuidString)
        try Data(bytes).write(to: tmp)
        guard rename(tmp.path, root.appendingPathComponent(name).path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    func url(_ name: String) -> String { proxy.baseURL + "/" + name }
}

/// Random bytes from the kernel: stand-in media that no two files share.
func randomBytes(_ count: Int) throws -> [UInt8] {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
    defer { try? handle.close() }
    return Array(try handle.read(upToCount: count) ?? Data())
}

/// Output of a child process.
struct Ran {
    var status: Int32
    var out: Data
    var err: String
    var text: String { String(decoding: out, as: UTF8.self) }
}

/// Runs a program (from `TestPrograms`) to completion, capturing stdout and stderr.
func run(_ program: URL, _ args: [String], stdin: String? = nil) throws -> Ran {
    let p = Process()
    p.executableURL = program
    p.arguments = args
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let errData = Mutex(Data())
    let reader = Thread { errData.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() } }
    reader.start()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    while !reader.isFinished { Thread.sleep(forTimeInterval: 0.005) }
    return Ran(status: p.terminationStatus, out: data, err: String(decoding: errData.withLock { $0 }, as: UTF8.self))
}

/// Runs blocking work (a child process) on a thread of its own, keeping Swift's small cooperative pool free
/// for the proxy's own tasks.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// curl: body, status and lower-cased response headers.
func curl(_ args: [String]) async throws -> (body: [UInt8], status: Int, headers: [String: String], exit: Int32) {
    try await offPool { try curlBlocking(args) }
}

func curlBlocking(_ args: [String]) throws -> (body: [UInt8], status: Int, headers: [String: String], exit: Int32) {
    let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("h-" + UUID().uuidString)
    defer { try? FileManager.default.removeItem(at: headerFile) }
    let r = try run(TestPrograms.path("curl"), ["-s", "-D", headerFile.path] + args)
    let head = (try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""
    var headers: [String: String] = [:]
    var status = 0
    for line in head.components(separatedBy: "\r\n") {
        if line.hasPrefix("HTTP/") { status = Int(line.split(separator: " ")[1]) ?? 0; headers = [:]; continue }
        if let colon = line.firstIndex(of: ":") {
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }
    return (Array(r.out), status, headers, r.status)
}

/// Splits a `multipart/byteranges` body into (Content-Range, bytes) parts.
func multipartParts(_ body: [UInt8], boundary: String) -> [(String, [UInt8])] {
    let delimiter = Array("--\(boundary)".utf8)
    var parts: [(String, [UInt8])] = []
    var i = 0
    func find(_ needle: [UInt8], from: Int) -> Int? {
        guard needle.count <= body.count else { return nil }
        var j = from
        while j + needle.count <= body.count {
            if body[j] == needle[0] && Array(body[j ..< j + needle.count]) == needle { return j }
            j += 1
        }
        return nil
    }
    while let start = find(delimiter, from: i) {
        let afterDelimiter = start + delimiter.count
        if body[afterDelimiter ..< min(afterDelimiter + 2, body.count)].elementsEqual("--".utf8) { break }
        guard let headEnd = find(Array("\r\n\r\n".utf8), from: afterDelimiter) else { break }
        let head = String(decoding: body[afterDelimiter ..< headEnd], as: UTF8.self)
        let range = head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-range:") }
            .map { String($0.dropFirst("content-range:".count)).trimmingCharacters(in: .whitespaces) } ?? ""
        let next = find(Array("\r\n--\(boundary)".utf8), from: headEnd + 4) ?? body.count
        parts.append((range, Array(body[(headEnd + 4) ..< next])))
        i = next
    }
    return parts
}

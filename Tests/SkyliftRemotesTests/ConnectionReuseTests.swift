import TestPrograms
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SkyliftHTTPClient
@testable import SkyliftRemotes
import SkyliftCore
import SkyliftStorageServer
import Synchronization
import TestProbes
import Testing
import SkyliftUploads
@testable import SkyliftS3

/// The clients keep their connections: a stream of requests to one server goes over one connection (or one
/// per request in flight), not a fresh TCP connect each. Counted on the server side, not asked of the client.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ConnectionReuseTests {
    @Test func webDAVFolderWalkUsesOneConnection() async throws {
        let scratch = try TempFolder("s3test"), root = scratch.url
        for f in 0..<20 {
            let folder = root.appendingPathComponent("album \(f)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for i in 0..<5 { try Data("photo \(i)".utf8).write(to: folder.appendingPathComponent("p\(i).jpg")) }
        }
        let requests = Mutex(0)
        let server = try StorageServer(configuration: StorageConfiguration(root: root, token: "walk", accessLog: Logger(label: "access") { _ in
            requests.withLock { $0 += 1 }
        }))
        try server.start()
        defer { server.stop() }
        let http = RemoteHTTP(transport: CurlTransport(), headers: RemoteHTTP.headers(token: "walk"), timeout: 10)
        let remote = WebDAVRemote(folderURL: URL(string: server.baseURL + "/dav/")!, http: http)
        // Walk the tree: list the top, then each folder, then stat every file found.
        var files: [String] = []
        for folder in try await remote.list("") where folder.isFolder {
            for entry in try await remote.list(folder.name) where !entry.isFolder {
                #expect(try await remote.stat(entry.name)?.info.length == 7)
                files.append(entry.name)
            }
        }
        #expect(files.count == 100)
        // The server logs a request when its completion callback runs, which can come just after the client
        // already has the answer: wait (bounded) for the last line rather than read the count too early.
        var sent = requests.withLock { $0 }
        for _ in 0..<100 where sent < 121 {
            try await Task.sleep(for: .milliseconds(50))
            sent = requests.withLock { $0 }
        }
        #expect(sent == 121)
        // One connection, or a couple more when a request started while the previous transfer was still
        // winding down (its handle not yet back in the pool; seen under heavy load): never one per request.
        #expect(server.connectionsAccepted <= 3, "\(server.connectionsAccepted) connections for \(sent) requests")
    }

    /// moto (werkzeug) closes every connection after its answer, so the parts go through an nginx reverse proxy
    /// (Debian package) that keeps the client's connections open; its `$connection` serials count them.
    @Test func s3PartsOfAnUploadShareAConnection() async throws {
        let moto = try await S3TestServer.get(verifying: false)
        let scratch = try TempFolder("s3test"), work = scratch.url
        let nginx = try NginxFront(work: work, upstream: moto.configuration.endpoint)
        defer { nginx.stop() }
        var configuration = moto.configuration
        configuration.endpoint = URL(string: "http://127.0.0.1:\(nginx.port)")!
        let client = S3Client(configuration: configuration, transport: CurlTransport(), timeout: 30)
        let bucket = try await moto.makeBucket()
        let remote = S3Remote(client: client, location: S3Location(bucket: bucket, prefix: "reuse/"), partLength: 5 << 20)
        let size = (5 << 20) * 4 + 1000
        let (file, _) = try randomFile(in: work, size: size)
        let uploader = Uploader(remote: remote, store: ResumeFileStore(directory: work.appendingPathComponent("resume")),
                                options: UploadOptions(retry: RetryPolicy(maxAttempts: 1, baseDelay: 0.01, maxDelay: 0.02), parts: 2))
        let result = try await uploader.run(try await BlobUploadSource.file(file.path), as: "parts.bin") { _ in }
        #expect(result.bytesSent == Int64(size))
        #expect(try await remote.stat("parts.bin")?.info.length == Int64(size))
        let requests = try nginx.requests()
        // Five parts, two at a time, plus create, complete and the stats around them: as many connections as
        // were in flight at once (two, three if a part was still finishing when the next request started), not
        // one per request.
        #expect(requests.count >= 8 && Set(requests).count <= 3,
                "\(Set(requests).count) connections for \(requests.count) requests")
    }
}

/// nginx in front of `upstream`, logging each request's connection serial.
struct NginxFront {
    let port: Int
    private let process = Process()
    private let log: URL

    init(work: URL, upstream: URL) throws {
        log = work.appendingPathComponent("access.log")
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0 }
        }
        close(probe)
        port = Int(UInt16(bigEndian: address.sin_port))
        let conf = work.appendingPathComponent("nginx.conf")
        try """
        daemon off;
        worker_processes 1;
        pid \(work.path)/nginx.pid;
        error_log \(work.path)/error.log;
        events {}
        http {
            log_format serial '$connection';
            access_log \(log.path) serial;
            client_max_body_size 0;
            client_body_temp_path \(work.path);
            proxy_temp_path \(work.path);
            server {
                listen 127.0.0.1:\(port);
                location / {
                    proxy_pass \(upstream.absoluteString);
                    proxy_set_header Host $http_host;
                    proxy_request_buffering off;
                    proxy_http_version 1.1;
                }
            }
        }
        """.write(to: conf, atomically: true, encoding: .utf8)
        process.executableURL = try TestPrograms.path("nginx")
        process.arguments = ["-c", conf.path, "-p", work.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: work.appendingPathComponent("nginx.pid").path) {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// The connection serial of every request so far.
    func requests() throws -> [String] {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

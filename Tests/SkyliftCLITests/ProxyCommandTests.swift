import Foundation
import SkyliftCore
import SkyliftStorageServer
import Synchronization
import TestProbes
import Testing
import TestPrograms

/// A `skylift proxy` child process.
final class ProxyProcess {
    let process = Process()
    let stdout = Pipe()
    let stderr = Pipe()

    init(_ arguments: [String], environment: [String: String] = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()],
         umask: String? = nil) throws {
        (process.executableURL, process.arguments) = try skyliftInvocation(["proxy"] + arguments, umask: umask)
        process.environment = environment
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
    }

    /// The proxy's base URL from its startup lines.
    func url() throws -> String {
        var buffer = Data()
        while !String(decoding: buffer, as: UTF8.self).contains("  cache:") {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        let line = try #require(String(decoding: buffer, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("  url:") })
        return String(line.dropFirst("  url:   ".count).dropLast())
    }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// What a failed body check needs to be understood: curl's own account of a second try, then the proxy's
    /// log once it is stopped.
    func diagnosis(_ url: String) -> String {
        let retry = (try? runForOutput(try TestPrograms.path("curl"), ["-sS", "-v", "--stderr", "-", "--max-time", "10", url]))
            .map { "exit \($0.status): \($0.out)" } ?? "curl did not run"
        process.terminate()
        return "curl again: \(retry)\nproxy log: \(finish().errors)"
    }

    func finish() -> (status: Int32, errors: String) {
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}

/// Body bytes via curl, or nil when curl failed.
func fetch(_ url: String, range: String? = nil, extra: [String] = []) throws -> [UInt8]? {
    let p = Process()
    p.executableURL = try TestPrograms.path("curl")
    p.arguments = ["-sf"] + (range.map { ["-r", $0] } ?? []) + extra + [url]
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return p.terminationStatus == 0 ? Array(data) : nil
}

@Suite(.serialized) struct ProxyCommandTests {
    @Test func proxyHelp() async {
        let r = await runSkylift(["proxy", "--help"])
        #expect(r.status == 0)
        #expect(r.out == """
        usage: skylift proxy --origin URL [--token-file FILE | --token TOKEN] [--header-file FILE] [--header 'NAME: VALUE']... [--listen HOST:PORT] [--allow-host NAME]... [--cache-dir DIR] [--max-cache-size SIZE] [--drop-query NAME]... [--max-connections N] [--max-connections-per-address N] [--header-timeout SECONDS] [--body-timeout SECONDS] [--keepalive-timeout SECONDS] [--quiet | --verbose] [--ca-cert FILE | --pin-sha256 PIN] [--s3-endpoint URL] [--s3-addressing MODE]

        Serve GET http://LISTEN/<path> from <origin>/<path>, adding the origin's headers
        (a token) so players that cannot send them can play the local URL. Byte ranges
        fetched once are kept in a sparse on-disk cache and shared by every player;
        seeking starts new ranges and stops downloads nobody waits for any more.
        An s3://bucket/prefix/ origin is read with signed requests (credentials from the AWS
        environment or shared files, endpoint from --s3-endpoint or AWS_ENDPOINT_URL).
        The token comes from --token-file, --token or $SKYLIFT_TOKEN. Only requests for
        loopback names and addresses (and --allow-host names) are answered, so web pages
        cannot read the origin by DNS rebinding; paths with '..', '.' or an encoded '/' are
        refused (400), so every request stays under the origin's prefix.

        options:
          --origin URL                  base URL of the cloud files (http, https or s3://bucket/prefix/)
          --header 'NAME: VALUE'        header sent to the origin (repeatable)
          --header-file FILE            more headers, one 'NAME: VALUE' per line of FILE (mode 0600)
          --token TOKEN                 send 'Authorization: Bearer TOKEN' to the origin (default: $SKYLIFT_TOKEN)
          --token-file FILE             read the token from FILE (mode 0600; unlike --token, not visible in ps)
          --listen HOST:PORT            address to listen on (default: 127.0.0.1:8422)
          --allow-host NAME             also answer requests whose Host is NAME (default: loopback only) (repeatable)
          --cache-dir DIR               cache folder (default: $XDG_CACHE_HOME/skylift)
          --max-cache-size SIZE         cache size limit, e.g. 500M, 2G (default: 2G)
          --drop-query NAME             query parameter left out of cache keys (repeatable)
          --max-connections N           connections held at once; at the cap the oldest idle one is closed (default: 10000)
          --max-connections-per-address N
                                        connections held from one client address (default: 1000)
          --header-timeout SECONDS      time to send a complete request head (default: 60)
          --body-timeout SECONDS        time a request body may pause (default: 60)
          --keepalive-timeout SECONDS   time an idle connection is kept between requests (default: 75)
          --quiet                       no request log on stderr; only warnings and errors
          --verbose                     also log details such as cache evictions
          --ca-cert FILE                trust an HTTPS server whose certificate is in FILE (PEM) or signed by one there
          --pin-sha256 PIN              trust the HTTPS server with this public key, as 'serve' prints (sha256//BASE64)
          --s3-endpoint URL             S3 service for s3:// locations (default: $AWS_ENDPOINT_URL, else AWS)
          --s3-addressing MODE          path, virtual or auto: bucket in the URL path or host (default: auto)
          --help                        show this help and exit

        examples:
          skylift proxy --origin http://127.0.0.1:8421/dav --token-file ~/.local/share/skylift/store.token
          ffplay http://127.0.0.1:8422/movies/trip.mp4
          skylift proxy --origin s3://media/movies/ --s3-endpoint http://127.0.0.1:9000

        """)
    }

    @Test func badInputNamesTheOptionAndHidesSecrets() async {
        let cases: [([String], String)] = [
            (["proxy"], "skylift proxy: option '--origin' is required\n"),
            (["proxy", "--origin", "ftp://h/x?sig=secret1"], "skylift proxy: bad value 'ftp://h/x?sig=REDACTED' for '--origin': expected an http://, https:// or s3:// URL\n"),
            (["proxy", "--origin", "http://h", "--header", "secret2"], "skylift proxy: option '--header' needs 'NAME: VALUE' with a valid name and no control characters\n"),
            (["proxy", "--origin", "http://h", "--max-cache-size", "huge"], "skylift proxy: bad value 'huge' for '--max-cache-size': expected a size of at least 1M, e.g. 500M or 2G\n"),
            (["proxy", "--origin", "http://h", "--allow-host", "media.lan:8422"], "skylift proxy: bad value 'media.lan:8422' for '--allow-host': expected a host name or IP address without a port\n"),
            (["proxy", "--origin", "http://h", "--token", "a b"], "skylift proxy: option '--token' holds a token with spaces or control characters\n"),
            (["proxy", "--origin", "http://h", "--listen", "nowhere"], "skylift proxy: bad value 'nowhere' for '--listen': expected HOST:PORT, e.g. 127.0.0.1:8421 or [::1]:8421\n"),
        ]
        for (args, message) in cases {
            let r = await runSkylift(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.err == message)
        }
    }

    /// The request log is a stream of its own: `--quiet` drops it (and info events) but keeps warnings;
    /// `--verbose` adds debug events (evictions); the two flags exclude each other.
    @Test func quietAndVerboseSetTheLogLevels() async throws {
        let scratch = try TempFolder("proxy"), base = scratch.url
        let root = try scratch.folder("cloud")
        let token = "tok-\(UUID().uuidString)"
        let cloud = try StorageServer(configuration: StorageConfiguration(root: root, token: token))
        try cloud.start()
        defer { cloud.stop() }
        let a = [UInt8](repeating: 1, count: 700_000), b = [UInt8](repeating: 2, count: 700_000)
        try Data(a).write(to: root.appendingPathComponent("a.bin"))
        try Data(b).write(to: root.appendingPathComponent("b.bin"))
        func run(_ flag: String) throws -> String {
            let proxy = try ProxyProcess(["--origin", cloud.baseURL + "/dav", "--token", token, "--listen", "127.0.0.1:0",
                                          "--cache-dir", base.appendingPathComponent("cache-\(flag)").path, "--max-cache-size", "1M", flag])
            let url = try proxy.url()
            #expect(try fetch(url + "/a.bin") == a)
            #expect(try fetch(url + "/b.bin") == b)
            #expect(try fetch(url + "/none.bin") == nil)
            proxy.process.terminate()
            let ended = proxy.finish()
            #expect(ended.status == 0)
            #expect(!ended.errors.contains(token))
            return ended.errors
        }
        let quiet = try run("--quiet")
        #expect(!quiet.contains("GET "), "\(quiet)")
        #expect(!quiet.contains("evicting"), "\(quiet)")
        #expect(quiet.contains("proxy: /none.bin: "), "\(quiet)")
        let verbose = try run("--verbose")
        #expect(verbose.contains("GET /a.bin 200 "), "\(verbose)")
        #expect(verbose.contains("GET /none.bin 404 "), "\(verbose)")
        #expect(verbose.contains("cache: evicting "), "\(verbose)")
        #expect(verbose.contains("proxy: /none.bin: "), "\(verbose)")

        let both = await runSkylift(["proxy", "--origin", "http://h", "--quiet", "--verbose"])
        #expect(both.status == 2)
        #expect(both.err == "skylift proxy: options '--quiet' and '--verbose' cannot be used together\n")
    }

    @Test func killedProxyRestartsWithItsCachedRangesAndNoneWrong() throws {
        let scratch = try TempFolder("proxy"), base = scratch.url
        let root = base.appendingPathComponent("cloud"), cache = base.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let sent = Mutex<Int64>(0)
        let token = "tok-\(UUID().uuidString)"
        let cloud = try StorageServer(configuration: StorageConfiguration(root: root, token: token, accessLog: Logger(label: "access") { line in
            let out = line.split(separator: " ").first { $0.hasPrefix("out=") }.flatMap { Int64($0.dropFirst(4)) } ?? 0
            sent.withLock { $0 += out }
        }))
        try cloud.start()
        defer { cloud.stop() }
        let data = Array((try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom")).read(upToCount: 3_000_000))!)
        try Data(data).write(to: root.appendingPathComponent("film.mp4"))
        let args = ["--origin", cloud.baseURL + "/dav", "--token", token, "--listen", "127.0.0.1:0",
                    "--cache-dir", cache.path, "--quiet"]

        let first = try ProxyProcess(args)
        let url = try first.url() + "/film.mp4"
        #expect(try fetch(url, range: "0-999999") == Array(data[0 ..< 1_000_000]))
        #expect(try fetch(url, range: "2000000-2499999") == Array(data[2_000_000 ..< 2_500_000]))

        // A second proxy on the same cache directory is refused, clearly.
        let second = try ProxyProcess(args)
        let refused = second.finish()
        #expect(refused.status == 1)
        #expect(refused.errors.contains("cache directory \(cache.path) is in use"))

        // Kill -9 in the middle of a slow transfer, so some blocks are written but not yet recorded.
        let slow = Process()
        slow.executableURL = try TestPrograms.path("curl")
        slow.arguments = ["-s", "-o", "/dev/null", "--limit-rate", "400k", "-r", "1000000-1999999", url]
        try slow.run()
        Thread.sleep(forTimeInterval: 0.6)
        first.kill9()
        slow.waitUntilExit()
        #expect(!token.isEmpty && !first.finish().errors.contains(token))

        let third = try ProxyProcess(args)
        let again = try third.url() + "/film.mp4"
        let before = sent.withLock { $0 }
        #expect(try fetch(again, range: "0-999999") == Array(data[0 ..< 1_000_000]))
        #expect(try fetch(again, range: "2000000-2499999") == Array(data[2_000_000 ..< 2_500_000]))
        // Those ranges came from the cache: the origin sent no body bytes for them.
        #expect(sent.withLock { $0 } == before)
        #expect(try fetch(again) == data)
        #expect(sent.withLock { $0 } - before <= 1_500_000 + 2 * 65_536)
        third.process.terminate()
        let ended = third.finish()
        #expect(ended.status == 0)
        #expect(!ended.errors.contains(token))
    }
}

/// `skylift proxy` in front of a plain nginx (Debian package) that answers only requests carrying a key header.
@Suite struct ProxyNginxOriginTests {
    @Test func nginxOriginThatDemandsAHeader() throws {
        let scratch = try TempFolder("nginx"), work = scratch.url
        let www = work.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www.appendingPathComponent("v"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: work.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let data = Array((try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom")).read(upToCount: 1_234_567))!)
        try Data(data).write(to: www.appendingPathComponent("v/clip.webm"))
        // nginx's workers run unprivileged.
        _ = try runForOutput(TestPrograms.path("chmod"), ["-R", "a+rwX", work.path])
        let port = try runForOutput(TestPrograms.python(), ["-c",
            "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"]).out
        let conf = work.appendingPathComponent("nginx.conf")
        try """
        worker_processes 1;
        daemon off;
        pid \(work.path)/nginx.pid;
        error_log \(work.path)/error.log;
        events {}
        http {
            access_log off;
            client_body_temp_path \(work.path)/tmp;
            types { video/webm webm; }
            server {
                listen 127.0.0.1:\(port);
                root \(www.path);
                location / { if ($http_x_origin_key != "nk-7") { return 401; } }
            }
        }
        """.write(to: conf, atomically: true, encoding: .utf8)
        // In the foreground: Foundation's Process waits for every holder of its exit-watch descriptor, which a
        // daemonizing nginx would keep forever.
        let nginx = Process()
        nginx.executableURL = try TestPrograms.path("nginx")
        nginx.arguments = ["-c", conf.path, "-p", work.path]
        nginx.standardOutput = FileHandle.nullDevice
        nginx.standardError = FileHandle.nullDevice
        try nginx.run()
        defer {
            nginx.terminate()
            nginx.waitUntilExit()
        }
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: work.appendingPathComponent("nginx.pid").path) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        try #require(nginx.isRunning, "nginx (Debian package nginx) did not start")
        let origin = "http://127.0.0.1:\(port)"
        #expect(try curlStatus([origin + "/v/clip.webm"]) == "401")

        let proxy = try ProxyProcess(["--origin", origin, "--header", "X-Origin-Key: nk-7", "--listen", "127.0.0.1:0",
                                      "--cache-dir", work.appendingPathComponent("cache").path])
        let base = try proxy.url()
        let url = base + "/v/clip.webm"
        #expect(try fetch(url) == data)
        #expect(try fetch(url, range: "1000000-1099999") == Array(data[1_000_000 ..< 1_100_000]))
        #expect(try fetch(url, range: "-77") == Array(data[(data.count - 77)...]))
        #expect(try curlStatus(["-I", url]) == "200")
        #expect(try curlStatus([base + "/v/none.webm"]) == "404")
        proxy.process.terminate()
        let ended = proxy.finish()
        #expect(ended.status == 0)
        #expect(ended.errors.contains("GET /v/clip.webm 200"))
        #expect(!ended.errors.contains("nk-7"))
    }
}

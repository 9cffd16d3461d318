import TestPrograms
import Foundation
import TestProbes
import Testing

/// A real `skylift serve` child with a token over a temp root, for the web app's tests, and curl to talk to it.
final class WebAppServer {
    private let scratch: TempFolder
    let base: URL
    let root: URL
    let token = "tok-" + UUID().uuidString
    /// `http://127.0.0.1:PORT` (no trailing slash).
    private(set) var url = ""
    /// With TLS, the public-key pin serve printed (`sha256//…`).
    private(set) var pin = ""
    /// The one-time sign-in link serve printed at its last start.
    private(set) var signInLink = ""
    /// Extra serve arguments, e.g. `--tls-self-signed`.
    let serveArguments: [String]
    private var serve: ServeProcess?

    init(serveArguments: [String] = []) throws {
        self.serveArguments = serveArguments
        scratch = try TempFolder("webapp")
        base = scratch.url
        root = try scratch.folder("root")
        try start()
    }

    /// Starts (or restarts) the server; the port changes.
    func start(quiet: Bool = true) throws {
        stop()
        let process = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--token", token] + (quiet ? ["--quiet"] : [])
                                       + serveArguments, environment: ["PATH": "/usr/bin:/bin"])
        let lines = process.lines(serveArguments.isEmpty ? 4 : 7)
        pin = lines.first { $0.hasPrefix("  pin:   --pin-sha256 ") }.map { String($0.dropFirst("  pin:   --pin-sha256 ".count)) } ?? ""
        guard let dav = lines.first(where: { $0.hasPrefix("  url:   ") && $0.hasSuffix("/dav/") }),
              let open = lines.first(where: { $0.hasPrefix("  open:  ") }) else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "serve printed \(lines)"])
        }
        url = String(dav.dropFirst("  url:   ".count).dropLast("/dav/".count))
        signInLink = String(open.dropFirst("  open:  ".count))
        serve = process
    }

    /// Stops the server and returns what it wrote to stderr.
    @discardableResult
    func stop() -> String {
        guard let serve else { return "" }
        _ = serve.terminate()
        self.serve = nil
        return String(decoding: serve.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    deinit { stop() }

    struct Answer {
        var status: Int
        var headers: [String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> [String] {
            headers.filter { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Runs curl on `path` (relative to the server) with `args`; status, response header lines and body.
    func curl(_ path: String, _ args: [String] = []) throws -> Answer {
        let headerFile = base.appendingPathComponent("h-\(UUID().uuidString)")
        let bodyFile = base.appendingPathComponent("b-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: headerFile); try? FileManager.default.removeItem(at: bodyFile) }
        let p = Process()
        p.executableURL = try TestPrograms.path("curl")
        p.arguments = ["-s", "-g", "-D", headerFile.path, "-o", bodyFile.path, "-w", "%{http_code}"] + args + [url + path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let headers = ((try? String(contentsOf: headerFile, encoding: .utf8)) ?? "").components(separatedBy: "\r\n")
        return Answer(status: Int(String(decoding: out, as: UTF8.self)) ?? 0, headers: headers,
                      body: (try? Data(contentsOf: bodyFile)) ?? Data())
    }

    /// Signs in through the token URL and returns the `Cookie` header value curl should send.
    func signIn() throws -> String {
        let answer = try curl("/?token=\(token)")
        let setCookie = try #require(answer.header("Set-Cookie").first)
        return String(setCookie.prefix { $0 != ";" })
    }
}

/// Runs a program to its end; exit status and its combined output.
func runProgram(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (Int32, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    if let environment { p.environment = environment }
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.run()
    let out = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: out, as: UTF8.self))
}

import TestProbes
import TestPrograms
import Foundation

/// A `skylift serve` child process on a loopback port over a fresh temporary root, and raw requests to it.
final class ServedRoot {
    static let token = "xml-attack-token-1"
    private let scratch: TempFolder
    let root: URL
    let serve: ServeProcess
    let url: String

    init() throws {
        scratch = try TempFolder("served")
        root = scratch.url
        serve = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--token", Self.token, "--quiet"],
                                 environment: ["PATH": "/usr/bin:/bin"])
        let line = serve.lines(3).first { $0.hasPrefix("  url:") } ?? ""
        url = line.replacingOccurrences(of: "  url:   ", with: "")
    }

    /// What the server answered: status, header fields (lower-cased names) and body as text.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// Sends one request with curl, the body as raw bytes; `path` is relative to the `/dav/` URL.
    func send(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]) throws -> Answer {
        let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent("xml-body-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: bodyFile) }
        var args = ["-s", "-i", "--max-time", "30", "-X", method, "-H", "Authorization: Bearer \(Self.token)"]
        for (name, value) in headers { args += ["-H", "\(name): \(value)"] }
        if let body {
            try Data(body).write(to: bodyFile)
            args += ["-H", "Content-Type: application/xml", "--data-binary", "@" + bodyFile.path]
        }
        let p = Process()
        p.executableURL = try TestPrograms.path("curl")
        p.arguments = args + [url + path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let raw = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let parts = raw.components(separatedBy: "\r\n\r\n")
        let head = parts.first?.components(separatedBy: "\r\n") ?? []
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let status = head.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        return Answer(status: status, headers: fields, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    func send(_ method: String, _ path: String, xml: String, headers: [String: String] = [:]) throws -> Answer {
        try send(method, path, body: Array(xml.utf8), headers: headers)
    }

    /// True when the process runs and answers a plain PROPFIND of the root.
    var isAnswering: Bool {
        serve.process.isRunning && (try? send("PROPFIND", "", headers: ["Depth": "0"]).status) == 207
    }

    deinit {
        if serve.process.isRunning { _ = serve.terminate() }
    }
}

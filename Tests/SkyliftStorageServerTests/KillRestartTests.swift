import Foundation
import Testing
import TestProbes
import TestPrograms

/// A tus upload outlives its server: the built `skylift serve` as a child process, killed with SIGKILL mid-PATCH.
@Suite struct KillRestartTests {
    /// `skylift serve` on `root` with no auth; the server and its base URL (`http://127.0.0.1:PORT`).
    static func serve(_ root: URL) throws -> (ServeProcess, base: String) {
        let serve = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--no-auth", "--quiet"],
                                     environment: ProcessInfo.processInfo.environment)
        // The banner names the bound port: "  url:   http://127.0.0.1:NNNN/dav/".
        let text = serve.lines(3).joined(separator: "\n")
        guard let range = text.range(of: #"http://[0-9.:]+"#, options: .regularExpression) else {
            serve.kill9()
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "no URL in serve output: \(text)"])
        }
        return (serve, String(text[range]))
    }

    @Test func tusUploadSurvivesKillNineMidPatch() throws {
        let scratch = try TempFolder("kill"), root = scratch.url
        let data = randomBytes(3_000_000)
        let source = try tempFile(data)
        defer { try? FileManager.default.removeItem(at: source) }

        let (first, firstBase) = try Self.serve(root)
        defer { if first.process.isRunning { first.kill9() } }
        let create = try Curl.run(["-X", "POST"] + TusTests.tus + ["-H", "Upload-Length: \(data.count)"]
                                  + TusTests.metadata([("filename", "killed.bin")]) + ["\(firstBase)/dav/"], authenticated: false)
        #expect(create.status == 201)
        let loc = try #require(create.header("Location"))
        // A raw client sends the first 1.2 MB of a PATCH promising everything, then stalls; the server dies.
        let port = try #require(URL(string: firstBase)?.port)
        let client = Process()
        client.executableURL = try TestPrograms.python()
        client.arguments = ["-c", """
            import socket, sys, time
            data = open(sys.argv[1], "rb").read()
            s = socket.create_connection(("127.0.0.1", \(port)))
            s.sendall(("PATCH \(loc) HTTP/1.1\\r\\nHost: x\\r\\nTus-Resumable: 1.0.0\\r\\n"
                       "Content-Type: application/offset+octet-stream\\r\\nUpload-Offset: 0\\r\\n"
                       "Content-Length: %d\\r\\n\\r\\n" % len(data)).encode())
            s.sendall(data[:1200000])
            print("sent", flush=True)
            time.sleep(30)
            """, source.path]
        let clientOut = Pipe()
        client.standardOutput = clientOut
        try client.run()
        defer { if client.isRunning { client.terminate() } }
        _ = clientOut.fileHandleForReading.availableData // "sent"
        Thread.sleep(forTimeInterval: 0.5) // let the server read what was sent before it dies
        first.kill9()
        client.terminate()

        let (second, secondBase) = try Self.serve(root)
        defer { if second.process.isRunning { second.kill9() } }
        let head = try Curl.run(["-I"] + TusTests.tus + ["\(secondBase)\(loc)"], authenticated: false)
        #expect(head.status == 200)
        let offset = try #require(head.header("Upload-Offset").flatMap { Int($0) })
        #expect(offset <= 1_200_000)
        // What the server says it has is exactly the start of the source.
        let stored = try Data(contentsOf: root.appendingPathComponent(".skylift-uploads/\(loc.dropFirst("/uploads/".count)).data"))
        #expect(stored.count == offset && Array(stored) == Array(data[0..<offset]))
        let rest = try tempFile(Array(data[offset...]))
        defer { try? FileManager.default.removeItem(at: rest) }
        let patch = try Curl.run(["-X", "PATCH"] + TusTests.tus + TusTests.octets + ["-H", "Upload-Offset: \(offset)",
                                  "--data-binary", "@\(rest.path)", "\(secondBase)\(loc)"], authenticated: false)
        #expect(patch.status == 204)
        #expect(try Array(Data(contentsOf: root.appendingPathComponent("killed.bin"))) == data)
        second.kill9()
    }
}

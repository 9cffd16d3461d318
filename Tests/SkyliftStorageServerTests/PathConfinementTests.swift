import Foundation
import Testing
import TestPrograms

@Suite struct PathConfinementTests {
    /// Raw request targets that try to leave the root or smuggle separators; none may succeed.
    static let attacks = [
        "/dav/../secret.txt", "/dav/sub/../../secret.txt", "/dav/%2e%2e/secret.txt", "/dav/%2E%2E/secret.txt",
        "/dav/sub/%2e%2e/%2e%2e/secret.txt", "/dav/..%2fsecret.txt", "/dav/sub%2f..%2f..%2fsecret.txt",
        "/dav/%2fetc/passwd", "/dav//etc/passwd", "/dav/a%00b", "/dav/sub%00/../x", "/dav/..%5csecret.txt",
        "/dav/sub\\..\\..\\secret.txt", "/dav/./sub/f.txt", "/dav/%2e/sub/f.txt", "/dav/outside/passwd",
        "/dav/outside", "/dav/sub/escape.txt", "/dav/.skylift-uploads/", "/dav/%zz", "/dav/%c3%28",
        "/../secret.txt", "/etc/passwd", "/dav/sub/%2e%2e%2f%2e%2e%2fsecret.txt",
    ]

    @Test func traversalAttemptsAreRefusedAndServerKeepsServing() throws {
        let f = try ServerFixture()
        let outsideDir = f.root.deletingLastPathComponent().appendingPathComponent("outside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outsideDir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outsideDir) }
        try Data("TOP SECRET".utf8).write(to: outsideDir.appendingPathComponent("passwd"))
        try f.write("sub/f.txt", Array("inside".utf8))
        try FileManager.default.createSymbolicLink(atPath: f.file("outside").path, withDestinationPath: outsideDir.path)
        try FileManager.default.createSymbolicLink(atPath: f.file("sub/escape.txt").path,
                                                   withDestinationPath: outsideDir.appendingPathComponent("passwd").path)
        try FileManager.default.createSymbolicLink(atPath: f.file("inlink.txt").path, withDestinationPath: f.file("sub/f.txt").path)
        // One python process sends every raw request (curl per request is slow on a busy machine).
        let requests = Self.attacks.flatMap { attack in ["GET", "PUT", "DELETE", "PROPFIND", "MKCOL"].map { [$0, attack] } }
        let answers = try Self.rawMany(f, requests)
        #expect(answers.count == requests.count)
        let control = try Self.rawMany(f, [["GET", "/dav/sub/f.txt"]])
        #expect(control.first?.status == 200 && control.first?.body == "inside")
        for (request, answer) in zip(requests, answers) {
            #expect([400, 403, 404].contains(answer.status), "\(request) -> \(answer.status)")
            #expect(!answer.body.contains("TOP SECRET"), "\(request) leaked")
        }
        #expect(try String(contentsOf: outsideDir.appendingPathComponent("passwd"), encoding: .utf8) == "TOP SECRET")
        #expect(FileManager.default.fileExists(atPath: outsideDir.path))
        // Still serving, and a symlink that stays inside the root is fine.
        #expect(try Curl.run([f.url("/dav/sub/f.txt")]).text == "inside")
        #expect(try Curl.run([f.url("/dav/inlink.txt")]).text == "inside")
    }

    @Test func specificRefusalStatuses() throws {
        let f = try ServerFixture()
        try f.write("sub/f.txt", Array("inside".utf8))
        #expect(try Curl.run([f.url("/dav/../x")]).status == 403)
        #expect(try Curl.run([f.url("/dav/%2e%2e/x")]).status == 403)
        #expect(try Curl.run([f.url("/dav/a%2fb")]).status == 403)
        #expect(try Curl.run([f.url("/dav/a%00")]).status == 403)
        #expect(try Curl.run([f.url("/dav/%zz")]).status == 400)
        #expect(try Curl.run([f.url("/dav/.skylift-uploads")]).status == 404)
        #expect(try Curl.run([f.url("/other")]).status == 404)
        #expect(try Curl.run([f.url("/dav/sub%20dir")]).status == 404)
        let bigHeader = try tempFile(Array(("X-Big: " + String(repeating: "a", count: 300_000) + "\n").utf8))
        defer { try? FileManager.default.removeItem(at: bigHeader) }
        #expect(try Curl.run(["-H", "@\(bigHeader.path)", f.url("/dav/sub/f.txt")]).status == 431)
        // A request line libmicrohttpd cannot parse at all just gets the connection closed.
        #expect(try Self.raw(f, "GARBAGE\r\n\r\n").isEmpty)
        #expect(try Self.raw(f, "GET /dav/sub/f.txt HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n").hasPrefix("HTTP/1.1 400"))
        #expect(try Curl.run([f.url("/dav/sub/f.txt")]).text == "inside")
        try f.write("sub dir/é.txt", Array("spaced".utf8))
        #expect(try Curl.run([f.url("/dav/sub%20dir/%C3%A9.txt")]).text == "spaced")
    }

    /// Sends raw bytes and returns what the server answers (first line is enough here).
    static func raw(_ f: ServerFixture, _ request: String) throws -> String {
        try runTool(TestPrograms.python(), ["-c", """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            s.settimeout(10)
            s.sendall(sys.argv[2].encode())
            print(s.recv(200).decode(errors="replace"), end="")
            """, String(URL(string: f.base)!.port!), request]).out
    }

    /// Sends each `[method, raw path]` on its own connection with a 1-byte body; returns status and body text.
    static func rawMany(_ f: ServerFixture, _ requests: [[String]]) throws -> [(status: Int, body: String)] {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: requests), as: UTF8.self)
        let r = try runTool(TestPrograms.python(), ["-c", """
            import json, socket, sys
            port, token, reqs = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
            for method, path in reqs:
                s = socket.create_connection(("127.0.0.1", port))
                s.settimeout(10)
                s.sendall(("%s %s HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Bearer %s\\r\\nContent-Length: 1\\r\\n"
                           "Connection: close\\r\\n\\r\\nx" % (method, path, token)).encode("latin-1"))
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                s.close()
                head, _, body = data.partition(b"\\r\\n\\r\\n")
                status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
                print(json.dumps([status, body.decode("latin-1")]))
            """, String(URL(string: f.base)!.port!), ServerFixture.token, json])
        return r.out.split(separator: "\n").compactMap { line in
            guard let a = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any], a.count == 2,
                  let status = a[0] as? Int, let body = a[1] as? String else { return nil }
            return (status, body)
        }
    }
}

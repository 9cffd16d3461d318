import TestPrograms
import Foundation
import TestProbes
import Testing

/// One writer per tus upload, attacked through the real `skylift serve` process: while a PATCH is in flight
/// (its client sends part of the body and pauses), a second PATCH and a DELETE get 423 Locked, whatever
/// offset they claim, and the first PATCH then completes the file byte for byte.
@Suite struct ServeTusConcurrencyTests {
    /// Drives the whole scenario from one python process: PATCH A sends `first` bytes and pauses; once HEAD
    /// shows bytes on disk (so A holds the upload), B and DELETE go in; then A sends the rest.
    static let script = """
        import json, socket, sys, time
        port, location, body_path, first = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
        body = open(body_path, "rb").read()
        def head_of(s):
            answer = b""
            while b"\\r\\n\\r\\n" not in answer:
                chunk = s.recv(65536)
                if not chunk: break
                answer += chunk
            head = answer.split(b"\\r\\n\\r\\n")[0].decode("latin-1").split("\\r\\n")
            status = int(head[0].split(" ")[1]) if head[0].startswith("HTTP/") else 0
            fields = dict((l.split(":", 1)[0].lower(), l.split(":", 1)[1].strip()) for l in head[1:] if ":" in l)
            return status, fields
        def start(method, headers, length):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            lines = ["%s %s HTTP/1.1" % (method, location), "Host: 127.0.0.1", "Tus-Resumable: 1.0.0",
                     "Content-Length: %d" % length, "Connection: close"] + ["%s: %s" % kv for kv in headers.items()]
            s.sendall(("\\r\\n".join(lines) + "\\r\\n\\r\\n").encode())
            return s
        def request(method, headers, data=b""):
            s = start(method, headers, len(data))
            try:
                s.sendall(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # a refusal may come before the body is read; the status is what counts
            status, fields = head_of(s)
            s.close()
            return status, fields.get("upload-offset")
        patch = {"Content-Type": "application/offset+octet-stream"}
        a = start("PATCH", dict(patch, **{"Upload-Offset": "0"}), len(body))
        a.sendall(body[:first])
        seen = "0"
        deadline = time.time() + 20
        while seen == "0" and time.time() < deadline:
            time.sleep(0.05)
            seen = request("HEAD", {})[1]
        out = {"seen": seen}
        out["b_zero"] = request("PATCH", dict(patch, **{"Upload-Offset": "0"}), body[:1000])[0]
        out["b_current"] = request("PATCH", dict(patch, **{"Upload-Offset": seen}), body[int(seen):int(seen) + 1000])[0]
        out["delete"] = request("DELETE", {})[0]
        a.sendall(body[first:])
        out["a"] = head_of(a)[0]
        out["after"] = request("HEAD", {})[0]
        out["delete_after"] = request("DELETE", {})[0]
        print(json.dumps(out))
        """

    @Test func secondPatchAndDeleteWaitTheirTurn() throws {
        let t = try HostileTree()
        // More than the server's 512 KiB write buffer arrives first, so HEAD sees bytes on disk while A pauses.
        let body = try #require(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: 1_300_000)
        let bodyFile = t.base.appendingPathComponent("body.bin")
        try body.write(to: bodyFile)
        let location = try create(t, length: body.count, name: "clip.bin")

        let port = try #require(URL(string: t.url)?.port)
        let run = try runForOutput(try TestPrograms.python(), ["-c", Self.script, String(port), location, bodyFile.path, "800000"]).out
        let out = try #require(try JSONSerialization.jsonObject(with: Data(run.utf8)) as? [String: Any], "\(run)")
        #expect((out["seen"] as? String).flatMap(Int.init).map { $0 > 0 } == true, "\(out)")
        #expect(out["b_zero"] as? Int == 423, "\(out)")
        #expect(out["b_current"] as? Int == 423, "\(out)")
        #expect(out["delete"] as? Int == 423, "\(out)")
        #expect(out["a"] as? Int == 204, "\(out)")
        // The finished upload moved into place and is gone as an upload resource.
        #expect(out["after"] as? Int == 404, "\(out)")
        #expect(out["delete_after"] as? Int == 404, "\(out)")
        #expect(try Data(contentsOf: t.file("inbox/clip.bin")) == body)
        try t.expectUnharmed()
    }

    @Test func deleteAfterAnInterruptedPatchRemovesEverything() throws {
        let t = try HostileTree()
        let location = try create(t, length: 1000, name: "half.bin")
        let port = try #require(URL(string: t.url)?.port)
        // A PATCH whose client vanishes mid-body: the server notices the closed connection and lets go.
        _ = try runForOutput(try TestPrograms.python(), ["-c", """
            import socket, sys
            a = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
            a.sendall(("PATCH %s HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nTus-Resumable: 1.0.0\\r\\n"
                       "Content-Type: application/offset+octet-stream\\r\\nUpload-Offset: 0\\r\\n"
                       "Content-Length: 1000\\r\\n\\r\\n" % sys.argv[2]).encode() + b"x" * 400)
            a.close()
            print("sent")
            """, String(port), location])
        // The DELETE may meet the PATCH still being wound down (423); it is accepted once that is over.
        var status = 0
        for _ in 0..<100 {
            status = try t.send("DELETE", location, ["Tus-Resumable: 1.0.0"]).status
            if status != 423 { break }
            usleep(50_000)
        }
        #expect(status == 204)
        #expect(try t.send("HEAD", location, ["Tus-Resumable: 1.0.0"]).status == 404)
        let uploads = try FileManager.default.contentsOfDirectory(atPath: t.file(".skylift-uploads").path)
        #expect(uploads.isEmpty, "\(uploads)")
        #expect(!t.exists("inbox/half.bin"))
        try t.expectUnharmed()
    }

    /// Creates an upload in `/dav/inbox/` and returns its `/uploads/<id>` path.
    private func create(_ t: HostileTree, length: Int, name: String) throws -> String {
        try FileManager.default.createDirectory(at: t.file("inbox"), withIntermediateDirectories: true)
        let metadata = "filename " + Data(name.utf8).base64EncodedString()
        let headers = try runForOutput(try TestPrograms.path("curl"), ["-s", "-D", "-", "-o", "/dev/null", "-X", "POST", "-H", "Tus-Resumable: 1.0.0",
                                                "-H", "Upload-Length: \(length)", "-H", "Upload-Metadata: \(metadata)", t.url + "inbox/"]).out
        let line = try #require(headers.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("location:") })
        return line.dropFirst("location:".count).trimmingCharacters(in: .whitespaces)
    }
}

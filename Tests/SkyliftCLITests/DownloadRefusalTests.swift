import Foundation
import SkyliftHTTPServer
import SkyliftCore
import Synchronization
import Testing
import TestPrograms

/// A WebDAV server that lists what it will not serve: every GET is refused with 403, and its listing may
/// carry a name that climbs out of the folder. What a broken or hostile server may send.
final class RefusingDAV: HTTPHandler, Sendable {
    private let server = Mutex<HTTPServer?>(nil)
    private let names: [String]

    /// `names`: the hrefs below `/dav/` the listing holds (as sent, percent-encoded).
    init(names: [String]) throws {
        self.names = names
        let s = HTTPServer(configuration: .init(), handler: self)
        try s.start()
        server.withLock { $0 = s }
    }

    var url: String { server.withLock { $0!.baseURL } + "/dav/" }

    func stop() { server.withLock { $0?.stop(); $0 = nil } }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        guard request.method == "PROPFIND" else { return .respond(.text(403, "not for you")) }
        let file = { (href: String) in
            "<d:response><d:href>/dav/\(href)</d:href><d:propstat><d:prop><d:resourcetype/><d:getcontentlength>5</d:getcontentlength>"
                + "<d:getetag>\"e1\"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
        }
        let folder = "<d:response><d:href>/dav/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop>"
            + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
        let listing = request.headers["Depth"] == "0" ? folder : folder + names.map(file).joined()
        let body = "<?xml version=\"1.0\" encoding=\"utf-8\"?><d:multistatus xmlns:d=\"DAV:\">\(listing)</d:multistatus>"
        return .respond(HTTPResponse(status: 207, headers: ["Content-Type": "application/xml; charset=utf-8"], body: .bytes(Array(body.utf8))))
    }

    deinit { stop() }
}

@Suite(.serialized) struct DownloadRefusalTests {
    func run(_ server: RefusingDAV) throws -> (events: [[String: Any]], status: Int32, out: URL) {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-refused-\(UUID().uuidString)")
        let process = try TransferProcess(["download", server.url, out.path, "--json"])
        let (events, status) = process.finish()
        return (events, status, out)
    }

    @Test func aFileListedButNotServedFailsByNameAndLeavesNothing() throws {
        let server = try RefusingDAV(names: ["secret.jpg"])
        let (events, status, out) = try run(server)
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(status == 1)
        let failed = events.first { $0["event"] as? String == "failed" }
        #expect(failed?["file"] as? String == "secret.jpg")
        #expect((failed?["error"] as? String ?? "").contains("listed, but the server will not serve it (HTTP 403)"), "\(events)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == [])
    }

    @Test func aNameClimbingOutOfTheFolderIsRefused() throws {
        let server = try RefusingDAV(names: ["ok.jpg", "..%2F..%2Fescaped.txt", "../../escaped.txt"])
        let (events, status, out) = try run(server)
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(status == 1)
        let error = events.first { $0["event"] as? String == "failed" }?["error"] as? String ?? ""
        #expect(error.contains("refusing the remote name"), "\(events)")
        #expect(!FileManager.default.fileExists(atPath: out.deletingLastPathComponent().appendingPathComponent("escaped.txt").path))
    }

    /// Python's http.server: no WebDAV, no ETag, and every range answered with the whole file. A download in
    /// ranges falls back to one stream (its Last-Modified shows the file did not change), and the file arrives.
    @Test func aPlainServerThatIgnoresRangesIsReadInOneStream() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-plain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let data = Data((0..<(9 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try data.write(to: root.appendingPathComponent("clip.bin"))
        let server = Process(), out = Pipe()
        server.executableURL = try TestPrograms.python()
        server.arguments = ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", root.path]
        (server.standardOutput, server.standardError) = (out, FileHandle.nullDevice)
        try server.run()
        // SIGKILL: the test process may pass SIGTERM on ignored, and then terminate() would not stop the server.
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(line.components(separatedBy: " port ").last?.split(separator: " ").first.flatMap { Int($0) }, "\(line)")

        let dest = root.appendingPathComponent("restore")
        let run = try TransferProcess(["download", "http://127.0.0.1:\(port)/clip.bin", dest.path, "--parts", "3", "--json"])
        let (events, status) = run.finish()
        #expect(status == 0, "\(run.errorText) \(events)")
        let restarted = events.first { $0["event"] as? String == "restarted" }?["reason"] as? String ?? ""
        #expect(restarted.contains("one stream"), "\(events)")
        #expect(try Data(contentsOf: dest.appendingPathComponent("clip.bin")) == data)
    }
}

import TestPrograms
import Foundation
import SkyliftHTTPServer
import SkyliftCore
import Synchronization
import TestProbes
import Testing

/// A date whose year does not fit any calendar arithmetic: it used to end `serve`, `proxy` and `upload`.
let hugeDate = "Sun, 06 Nov 99999999999999999 08:49:37 GMT"

/// curl's status and body size for one request.
func curlOutcome(_ args: [String]) throws -> (status: String, size: Int, headers: String) {
    let headers = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-curl-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: headers) }
    let p = Process()
    p.executableURL = try TestPrograms.path("curl")
    p.arguments = ["-s", "--max-time", "20", "-o", "/dev/null", "-D", headers.path, "-w", "%{http_code} %{size_download}"] + args
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: " ")
    p.waitUntilExit()
    let head = (try? String(contentsOf: headers, encoding: .utf8)) ?? ""
    return (out.first.map(String.init) ?? "", out.count > 1 ? Int(out[1]) ?? -1 : -1, head)
}

/// 64 copies of `0-`: the whole file 64 times over, if a server were to send what was asked.
let overlappingRanges = Array(repeating: "0-", count: 64).joined(separator: ",")

/// An HTTP peer whose every `Last-Modified` (and PROPFIND date) is out of any calendar, serving one file with
/// single ranges, and taking WebDAV PUTs: the origin for `proxy`, the remote for `upload`.
final class HugeDatePeer: HTTPHandler, Sendable {
    let file: [UInt8]
    let uploaded = Mutex<[String: [UInt8]]>([:])
    private let server = Mutex<HTTPServer?>(nil)

    init(file: [UInt8]) throws {
        self.file = file
        let s = HTTPServer(configuration: .init(), handler: self)
        try s.start()
        server.withLock { $0 = s }
    }

    var base: String { server.withLock { $0!.baseURL } }

    func stop() { server.withLock { $0?.stop(); $0 = nil } }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        var h: HTTPHeaders = ["Last-Modified": hugeDate, "Accept-Ranges": "bytes"]
        switch request.method {
        case "OPTIONS":
            h.add("DAV", "1")
            h.add("Allow", "OPTIONS, GET, HEAD, PUT, PROPFIND")
            return .respond(HTTPResponse(status: 200, headers: h))
        case "PROPFIND":
            let xml = """
            <?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>\(request.path)</d:href><d:propstat>\
            <d:prop><d:resourcetype><d:collection/></d:resourcetype><d:getlastmodified>\(hugeDate)</d:getlastmodified>\
            <d:getcontentlength>99999999999999999999</d:getcontentlength></d:prop><d:status>HTTP/1.1 200 OK</d:status>\
            </d:propstat></d:response></d:multistatus>
            """
            h.add("Content-Type", "application/xml")
            return .respond(HTTPResponse(status: 207, headers: h, body: .bytes(Array(xml.utf8))))
        case "PUT":
            return .receive(Upload(peer: self, path: request.path))
        case "HEAD" where request.path.hasPrefix("/up/"):
            guard let bytes = uploaded.withLock({ $0[request.path] }) else { return .respond(HTTPResponse(status: 404, headers: h)) }
            h.add("Content-Length", String(bytes.count))
            return .respond(HTTPResponse(status: 200, headers: h, body: .stream(length: Int64(bytes.count), producer: NoBody())))
        default:
            var status = 200
            var range = ByteRange(offset: 0, length: Int64(file.count))
            if let value = request.headers["Range"], let header = RangeHeader(value),
               case let .satisfiable(r) = header.resolve(length: Int64(file.count)) {
                status = 206
                range = r[0]
                h.add("Content-Range", range.contentRange(total: Int64(file.count)))
            }
            h.add("Content-Type", "application/octet-stream")
            return .respond(HTTPResponse(status: status, headers: h, body: .bytes(Array(file[Int(range.offset) ..< Int(range.end)]))))
        }
    }

    private final class Upload: HTTPBodyReceiver {
        let peer: HugeDatePeer
        let path: String
        var bytes: [UInt8] = []
        init(peer: HugeDatePeer, path: String) {
            self.peer = peer
            self.path = path
        }

        func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
            bytes += chunk
            return nil
        }

        func finish() -> HTTPResponse {
            let (path, bytes) = (path, bytes)
            peer.uploaded.withLock { $0[path] = bytes }
            return HTTPResponse(status: 201, headers: ["Last-Modified": hugeDate])
        }

        func abort() {}
    }

    private final class NoBody: HTTPBodyProducer {
        func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult { .end }
        func close() {}
    }
}

/// Headers and peers with numbers that do not fit, against the real `skylift serve`, `proxy` and `upload`
/// processes: each must stay up and answer as RFC 9110 says (ignore the field, or 400/413), never trap.
@Suite(.serialized) struct HostileNumberTests {
    private func startServe(root: URL, token: String) throws -> (ServeProcess, String) {
        let serve = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--token", token, "--quiet"],
                                     environment: ["PATH": "/usr/bin:/bin"])
        let url = try #require(serve.lines(3).first { $0.hasPrefix("  url:") }).replacingOccurrences(of: "  url:   ", with: "")
        return (serve, url)
    }

    @Test func serveIgnoresHugeDatesAndRefusesOverflowingTusLengths() throws {
        let scratch = try TempFolder("numbers"), root = scratch.url
        let file = Array(repeating: UInt8(ascii: "x"), count: 1000)
        try Data(file).write(to: root.appendingPathComponent("a.bin"))
        // A file dated in the year 2286: its mtime in nanoseconds does not fit in Int64.
        let future = root.appendingPathComponent("future.bin")
        try Data("future".utf8).write(to: future)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 10_000_000_000)], ofItemAtPath: future.path)
        let token = "tok-\(UUID().uuidString)"
        let (serve, url) = try startServe(root: root, token: token)
        defer { _ = serve.terminate() }
        let auth = ["-H", "Authorization: Bearer \(token)"]

        #expect(try curlOutcome(auth + ["-H", "If-Modified-Since: \(hugeDate)", url + "a.bin"]).status == "200")
        #expect(try curlOutcome(auth + ["-H", "If-Unmodified-Since: \(hugeDate)", url + "a.bin"]).status == "200")
        let ifRange = try curlOutcome(auth + ["-H", "If-Range: \(hugeDate)", "-r", "0-9", url + "a.bin"])
        #expect(ifRange.status == "200" && ifRange.size == 1000)
        let dated = try curlOutcome(auth + [url + "future.bin"])
        #expect(dated.status == "200" && dated.headers.contains("Last-Modified: "))
        #expect(try curlOutcome(auth + ["-X", "PROPFIND", "-H", "Depth: 1", url]).status == "207")
        // Found by the dav-xml fuzz target: a body with no element made XMLDocument dereference a null document.
        #expect(try curlOutcome(auth + ["-X", "PROPPATCH", url + "a.bin"]).status == "400")
        #expect(try curlOutcome(auth + ["-X", "PROPFIND", "-H", "Depth: 0", "--data-binary", "  \n", url]).status == "400")
        // Found by the s3-xml and propfind targets: XMLParser traps on an element name that is not UTF-8.
        let latin1 = root.appendingPathComponent("latin1.xml")
        try Data([0x3C, 0xE9, 0x61, 0x2F, 0x3E]).write(to: latin1) // <éa/> in ISO-8859-1
        #expect(try curlOutcome(auth + ["-X", "PROPFIND", "-H", "Depth: 0", "--data-binary", "@" + latin1.path, url]).status == "400")
        // And on a processing instruction without data, it dereferences a null pointer.
        #expect(try curlOutcome(auth + ["-X", "PROPFIND", "-H", "Depth: 0", "--data-binary",
                                        "<?a?><D:propfind xmlns:D=\"DAV:\"><D:allprop/></D:propfind>", url]).status == "400")

        // tus: three bytes in, then a PATCH at offset 3 claiming an Int64.max body.
        let created = try curlOutcome(auth + ["-X", "POST", "-H", "Tus-Resumable: 1.0.0", "-H", "Upload-Length: 10",
                                              "-H", "Upload-Metadata: filename dC5iaW4=", url])
        #expect(created.status == "201")
        let location = try #require(created.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") })
        let uploadURL = url.replacingOccurrences(of: "/dav/", with: "") + location.dropFirst("location:".count).trimmingCharacters(in: .whitespaces)
        let patch = auth + ["-X", "PATCH", "-H", "Tus-Resumable: 1.0.0", "-H", "Content-Type: application/offset+octet-stream"]
        // A Content-Type that is only a parameter separator used to index an empty split.
        #expect(try curlOutcome(auth + ["-X", "PATCH", "-H", "Tus-Resumable: 1.0.0", "-H", "Content-Type: ;",
                                        "-H", "Upload-Offset: 0", "--data-binary", "abc", uploadURL]).status == "415")
        #expect(try curlOutcome(patch + ["-H", "Upload-Offset: 0", "--data-binary", "abc", uploadURL]).status == "204")
        let huge = try curlOutcome(patch + ["-H", "Upload-Offset: 3", "-H", "Content-Length: 9223372036854775807",
                                            "--data-binary", "def", uploadURL])
        #expect(huge.status == "413")
        let bad = try curlOutcome(patch + ["-H", "Upload-Offset: 99999999999999999999", "--data-binary", "def", uploadURL])
        #expect(bad.status == "400")
        #expect(try curlOutcome(auth + ["-I", "-H", "Tus-Resumable: 1.0.0", uploadURL]).headers.contains("Upload-Offset: 3"))

        #expect(serve.process.isRunning)
        #expect(try curlOutcome(auth + [url + "a.bin"]).status == "200")
    }

    @Test func serveAnswersOverlappingRangesWithAtMostTheFile() throws {
        let scratch = try TempFolder("ranges"), root = scratch.url
        try Data(Array(repeating: UInt8(ascii: "y"), count: 10_000)).write(to: root.appendingPathComponent("r.bin"))
        let token = "tok-\(UUID().uuidString)"
        let (serve, url) = try startServe(root: root, token: token)
        defer { _ = serve.terminate() }
        let auth = ["-H", "Authorization: Bearer \(token)"]

        let many = try curlOutcome(auth + ["-H", "Range: bytes=\(overlappingRanges)", url + "r.bin"])
        #expect(many.status == "200" && many.size == 10_000)
        let merged = try curlOutcome(auth + ["-H", "Range: bytes=0-99,50-149", url + "r.bin"])
        #expect(merged.status == "206" && merged.size == 150 && merged.headers.contains("Content-Range: bytes 0-149/10000"))
        let apart = try curlOutcome(auth + ["-H", "Range: bytes=0-9,100-109", url + "r.bin"])
        #expect(apart.status == "206" && apart.headers.contains("multipart/byteranges") && apart.size < 1000)
        #expect(serve.process.isRunning)
    }

    @Test func proxySurvivesHugeDatesFromOriginAndClientAndCapsRanges() throws {
        let file = (0 ..< 20_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let origin = try HugeDatePeer(file: file)
        defer { origin.stop() }
        let scratch = try TempFolder("proxy-cache"), cache = scratch.url
        let proxy = try ProxyProcess(["--origin", origin.base, "--listen", "127.0.0.1:0", "--cache-dir", cache.path, "--quiet"])
        defer { proxy.kill9() }
        let url = try proxy.url() + "/media/f.bin"

        #expect(try fetch(url) == file)
        let ifRange = try curlOutcome(["-H", "If-Range: \(hugeDate)", "-r", "0-9", url])
        #expect(ifRange.status == "200" && ifRange.size == file.count)
        let many = try curlOutcome(["-H", "Range: bytes=\(overlappingRanges)", url])
        #expect(many.status == "200" && many.size == file.count)
        let merged = try curlOutcome(["-H", "Range: bytes=0-99,50-149", url])
        #expect(merged.status == "206" && merged.size == 150)
        #expect(try fetch(url, range: "100-199") == Array(file[100 ..< 200]))
        #expect(proxy.process.isRunning)
    }

    @Test func uploadSurvivesARemoteWithHugeDatesAndLengths() throws {
        let scratch = try TempFolder("upload-src"), dir = scratch.url
        let source = dir.appendingPathComponent("clip.bin")
        let bytes = Array("hostile remote".utf8)
        try Data(bytes).write(to: source)
        let peer = try HugeDatePeer(file: [])
        defer { peer.stop() }
        let upload = try TransferProcess(["upload", source.path, "--to", peer.base + "/up/", "--state", dir.appendingPathComponent("state").path])
        let (_, status) = upload.finish()
        #expect(status == 0, "\(upload.errorText)")
        #expect(peer.uploaded.withLock { $0["/up/clip.bin"] } == bytes)
    }

    @Test func s3UploadIgnoresListedPartsWithImpossibleSizes() throws {
        let scratch = try TempFolder("s3-lies"), dir = scratch.url
        let source = dir.appendingPathComponent("big.bin")
        let length = 9 << 20 // above the single-PUT limit: a multipart upload whose parts are listed
        try Data(count: length).write(to: source)
        let s3 = try LyingS3()
        defer { s3.stop() }
        let upload = try TransferProcess(["upload", source.path, "--to", "s3://bucket/media/", "--s3-endpoint", s3.endpoint,
                                          "--s3-addressing", "path", "--state", dir.appendingPathComponent("state").path],
                                         environment: ["PATH": "/usr/bin:/bin", "HOME": dir.path,
                                                       "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"])
        let (_, status) = upload.finish()
        #expect(status == 0, "\(upload.errorText)")
        #expect(s3.storedLength == length)
    }
}

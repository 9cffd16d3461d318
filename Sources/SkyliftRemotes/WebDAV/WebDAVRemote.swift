import Foundation
import SkyliftHTTPClient
import SkyliftCore
import Synchronization

/// A WebDAV folder (RFC 4918): PUT to write, MKCOL for missing parents, HEAD/PROPFIND to stat.
///
/// A write goes to a hidden sibling (`.name.skylift-part`) and is moved into place when complete, when the
/// server allows MOVE; so a cut connection never leaves a half-written file under the real name.
public struct WebDAVRemote: Remote {
    public var kind: RemoteKind { .webdav }
    public let folderURL: URL
    public let http: RemoteHTTP
    /// Whether writes go to a temporary name and are moved into place.
    public let movesIntoPlace: Bool

    public init(folderURL: URL, http: RemoteHTTP, movesIntoPlace: Bool = true) {
        self.folderURL = RemotePath.folder(folderURL)
        self.http = http
        self.movesIntoPlace = movesIntoPlace
    }

    public var capabilities: RemoteCapabilities { RemoteCapabilities(resumable: false, readable: true) }

    public func url(_ name: String, isFolder: Bool = false) -> URL { RemotePath.url(name, in: folderURL, isFolder: isFolder) }

    public func stat(_ name: String) async throws -> RemoteObject? {
        let u = url(name)
        let r = try await http.send("HEAD", u)
        switch r.status {
        case 200, 204:
            let h = r.headers
            let info = ContentInfo(length: h.integer("Content-Length"), contentType: h["Content-Type"],
                                   etag: h["ETag"], lastModified: h["Last-Modified"].flatMap(HTTPDate.parse))
            return RemoteObject(name: name, url: u, info: info, sha256: ServerDigest.sha256(h))
        case 404, 410: return nil
        case 405, 501:
            return try await propfind(u, depth: 0).first.map { RemoteObject(name: name, url: u, info: $0.info, isFolder: $0.isCollection) }
        default: throw RemoteError.status(r.status, method: "HEAD", url: u, detail: nil)
        }
    }

    public func read(_ name: String, range: ByteRange?) async throws -> HTTPClientResponse {
        let u = url(name)
        var h = HTTPHeaders()
        if let range { h.add("Range", "bytes=\(range.offset)-\(range.last)") }
        let r = try await http.send("GET", u, headers: h)
        guard r.status == 200 || r.status == 206 else {
            throw RemoteError.status(r.status, method: "GET", url: u, detail: RemoteHTTP.detail((try? await r.collect(upTo: 4096)) ?? []))
        }
        return r
    }

    public func list(_ prefix: String) async throws -> [RemoteObject] {
        let base = prefix.isEmpty ? folderURL : url(prefix, isFolder: true)
        let basePath = Self.trimmedPath(URLComponents(url: base, resolvingAgainstBaseURL: true)?.path ?? base.path)
        return try await propfind(base, depth: 1).compactMap { entry in
            let trimmed = Self.trimmedPath(entry.href)
            guard trimmed != basePath else { return nil }
            let leaf = trimmed.split(separator: "/").last.map(String.init) ?? trimmed
            let name = prefix.isEmpty ? leaf : prefix + "/" + leaf
            return RemoteObject(name: name, url: url(name, isFolder: entry.isCollection), info: entry.info, isFolder: entry.isCollection)
        }
    }

    public func delete(_ name: String) async throws {
        try await http.expect([200, 202, 204, 404], "DELETE", url(name))
    }

    public func move(_ from: String, to: String) async throws { try await transfer("MOVE", from, to: to) }

    public func copy(_ from: String, to: String) async throws { try await transfer("COPY", from, to: to) }

    /// MOVE or COPY (RFC 4918 §9.8–9.9) of a file or a whole folder, overwriting the destination.
    private func transfer(_ method: String, _ from: String, to: String) async throws {
        guard from != to else { return }
        try await makeParents(of: to)
        let source = url(from)
        // A folder is addressed with its trailing slash; HEAD cannot tell, PROPFIND can.
        let isFolder = try await propfind(source, depth: 0).first?.isCollection ?? false
        let headers: HTTPHeaders = ["Destination": url(to, isFolder: isFolder).absoluteString, "Overwrite": "T", "Depth": "infinity"]
        let r = try await http.send(method, isFolder ? url(from, isFolder: true) : source, headers: headers)
        let detail = RemoteHTTP.detail((try? await r.collect(upTo: 4096)) ?? [])
        switch r.status {
        case 200, 201, 204: return
        case 405, 501: throw RemoteError.unsupported(url: source, operation: method)
        default: throw RemoteError.status(r.status, method: method, url: source, detail: detail)
        }
    }

    public func startWrite(_ name: String, length: Int64) async throws -> any RemoteWrite {
        try await makeParents(of: name)
        return WebDAVWrite(remote: self, name: name, length: length, token: movesIntoPlace ? Self.partName(for: name) : name)
    }

    public func resumeWrite(_ name: String, length: Int64, token: String) async throws -> (any RemoteWrite)? {
        // A PUT cannot continue; the same temporary name is reused so the stale part gets overwritten.
        try await startWrite(name, length: length)
    }

    /// Runs PROPFIND on `target` asking for the properties in `body`; 404 yields no entries.
    public func propfind(_ target: URL, depth: Int, body: String = PropfindResponse.requestBody) async throws -> [PropfindEntry] {
        let r = try await http.expect([207, 404], "PROPFIND", target,
                                      headers: ["Depth": String(depth), "Content-Type": "application/xml; charset=utf-8"],
                                      body: .bytes(Array(body.utf8)), bodyLimit: 16 << 20)
        return r.status == 404 ? [] : try PropfindResponse.parse(r.body, url: target)
    }

    /// Creates the folders above `name` that do not exist yet (MKCOL answers 405 for existing ones).
    func makeParents(of name: String) async throws {
        for parent in RemotePath.parents(of: name) {
            try await http.expect([200, 201, 204, 301, 405], "MKCOL", url(parent, isFolder: true))
        }
    }

    /// The path of a (decoded) href without scheme, host and trailing slash.
    public static func trimmedPath(_ href: String) -> String {
        var path = Substring(href)
        if let scheme = path.range(of: "://") {
            let rest = path[scheme.upperBound...]
            path = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    /// `dir/.leaf.skylift-part` for `dir/leaf`.
    static func partName(for name: String) -> String {
        var parts = name.split(separator: "/").map(String.init)
        guard let leaf = parts.popLast() else { return name }
        return (parts + [".\(leaf).skylift-part"]).joined(separator: "/")
    }
}

/// A single PUT (to the temporary name), moved into place by ``finish()``.
///
/// A server that lists MOVE but refuses it gets the object PUT again under its real name: slower, still correct.
final class WebDAVWrite: RemoteWrite {
    let remote: WebDAVRemote
    let name: String
    let length: Int64
    let token: String
    /// The last part sent, kept only for that fallback PUT.
    private let sent = Mutex<WritePart?>(nil)

    init(remote: WebDAVRemote, name: String, length: Int64, token: String) {
        self.remote = remote
        self.name = name
        self.length = length
        self.token = token
    }

    var isResumable: Bool { false }
    var maxPartLength: Int64? { nil }
    /// The whole object's SHA-256 goes along as `Content-Digest` (RFC 9530); the embedded server checks it and
    /// answers 400 with `Want-Content-Digest` when the body was damaged on the way, others ignore it.
    var partChecksum: PartChecksumAlgorithm? { .sha256 }

    func confirmedOffset() async throws -> Int64 { 0 }

    func send(_ part: WritePart) async throws -> Int64 {
        guard part.offset == 0, part.length == length else {
            throw RemoteError.protocolViolation(url: remote.url(name), reason: "a WebDAV PUT must carry the whole object")
        }
        try await put(part, to: token)
        sent.withLock { $0 = part }
        return length
    }

    private func put(_ part: WritePart, to target: String) async throws {
        var h: HTTPHeaders = ["Content-Type": MediaType.forPath(name)]
        h.add("Content-Length", String(length))
        if let digest = part.checksum { h.add("Content-Digest", ServerDigest.contentDigest(digest)) }
        let url = remote.url(target)
        let r = try await remote.http.send("PUT", url, headers: h, body: .stream(length: length, open: part.open))
        let detail = RemoteHTTP.detail((try? await r.collect(upTo: 4096)) ?? [])
        switch r.status {
        case 200, 201, 204: return
        case 400 where part.checksum != nil && r.headers[ServerDigest.mismatchHeader] != nil:
            throw RemoteError.checksumMismatch(url: url)
        default: throw RemoteError.status(r.status, method: "PUT", url: url, detail: detail)
        }
    }

    func finish() async throws {
        guard token != name else { return }
        let destination = remote.url(name)
        let r = try await remote.http.send("MOVE", remote.url(token), headers: ["Destination": destination.absoluteString, "Overwrite": "T"])
        _ = try? await r.collect(upTo: 4096)
        switch r.status {
        case 200, 201, 204: return
        case 405, 501:
            guard let part = sent.withLock({ $0 }) else { throw RemoteError.status(r.status, method: "MOVE", url: destination, detail: nil) }
            try? await remote.delete(token)
            try await put(part, to: name)
        default:
            throw RemoteError.status(r.status, method: "MOVE", url: destination, detail: nil)
        }
    }

    func abort() async throws {
        guard token != name else { return }
        try await remote.delete(token)
    }
}

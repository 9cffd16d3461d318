import Foundation
import HTTPClient
import SkyliftCore

/// A tus 1.0 endpoint: uploads are created by POST to ``creationURL`` with `filename` / `relativePath`
/// metadata, resumed from the server's `Upload-Offset` (HEAD), sent by PATCH (with `Upload-Checksum` when the
/// server checks parts) and removed by DELETE (termination).
///
/// tus itself cannot stat, read or list; when the same folder also speaks WebDAV (the embedded server does),
/// those calls go to ``dav``.
public struct TusRemote: Remote {
    public let folderURL: URL
    /// Where uploads are created (the folder URL itself on the embedded server, a vendor's `/files/` elsewhere).
    public let creationURL: URL
    public let options: TusOptions
    public let http: RemoteHTTP
    /// The same folder over WebDAV, when offered.
    public let dav: WebDAVRemote?
    /// Upper bound on one PATCH body; parts are digested then streamed, so this bounds re-sends, not memory.
    public let partLength: Int64

    public init(folderURL: URL, creationURL: URL? = nil, options: TusOptions, http: RemoteHTTP, dav: WebDAVRemote? = nil,
                partLength: Int64 = 64 << 20) {
        self.folderURL = RemotePath.folder(folderURL)
        self.creationURL = creationURL ?? folderURL
        self.options = options
        self.http = http
        self.dav = dav
        self.partLength = partLength
    }

    public var capabilities: RemoteCapabilities {
        RemoteCapabilities(resumable: true, readable: dav != nil, maxSize: options.maxSize)
    }

    public func stat(_ name: String) async throws -> RemoteObject? { try await dav?.stat(name) }

    public func read(_ name: String, range: ByteRange?) async throws -> HTTPClientResponse {
        guard let dav else { throw RemoteError.protocolViolation(url: creationURL, reason: "a tus endpoint cannot be read back") }
        return try await dav.read(name, range: range)
    }

    public func list(_ prefix: String) async throws -> [RemoteObject] { try await dav?.list(prefix) ?? [] }

    public func delete(_ name: String) async throws { try await dav?.delete(name) }

    /// tus has no move or copy: they go to the WebDAV side when the folder offers it (the embedded cloud does).
    public func move(_ from: String, to: String) async throws {
        guard let dav else { throw RemoteError.unsupported(url: creationURL, operation: "move (tus has no MOVE and no WebDAV was offered)") }
        try await dav.move(from, to: to)
    }

    public func copy(_ from: String, to: String) async throws {
        guard let dav else { throw RemoteError.unsupported(url: creationURL, operation: "copy (tus has no COPY and no WebDAV was offered)") }
        try await dav.copy(from, to: to)
    }

    public func startWrite(_ name: String, length: Int64) async throws -> any RemoteWrite {
        if let max = options.maxSize, length > max {
            throw RemoteError.status(413, method: "POST", url: creationURL, detail: "\(length) bytes exceed Tus-Max-Size \(max)")
        }
        let r = try await http.expect([200, 201], "POST", creationURL, headers: TusProtocol.creationHeaders(length: length, name: name))
        guard let location = r.headers["Location"], let upload = URL(string: location, relativeTo: creationURL)?.absoluteURL else {
            throw RemoteError.protocolViolation(url: creationURL, reason: "upload created without a Location")
        }
        return TusWrite(remote: self, uploadURL: upload, length: length)
    }

    public func resumeWrite(_ name: String, length: Int64, token: String) async throws -> (any RemoteWrite)? {
        guard let upload = URL(string: token) else { return nil }
        let write = TusWrite(remote: self, uploadURL: upload, length: length)
        do {
            let head = try await write.head()
            if let l = head.length, l != length { return nil }
            return write
        } catch let e as RemoteError where e.disposition == .restart {
            return nil
        }
    }
}

/// One tus upload resource.
struct TusWrite: RemoteWrite {
    let remote: TusRemote
    let uploadURL: URL
    let length: Int64

    var token: String { uploadURL.absoluteString }
    var isResumable: Bool { true }
    var maxPartLength: Int64? { remote.partLength }
    var partChecksum: PartChecksumAlgorithm? { remote.options.partChecksum }

    /// The server's offset and length (HEAD).
    func head() async throws -> (offset: Int64, length: Int64?) {
        let r = try await remote.http.send("HEAD", uploadURL, headers: TusProtocol.baseHeaders())
        switch r.status {
        case 200, 204:
            guard let offset = TusProtocol.offset(r.headers) else {
                throw RemoteError.protocolViolation(url: uploadURL, reason: "HEAD answered without Upload-Offset")
            }
            return (offset, TusProtocol.length(r.headers))
        case 403, 404, 410: throw RemoteError.uploadGone(url: uploadURL)
        default: throw RemoteError.status(r.status, method: "HEAD", url: uploadURL, detail: nil)
        }
    }

    func confirmedOffset() async throws -> Int64 { try await head().offset }

    func send(_ part: WritePart) async throws -> Int64 {
        let checksum = partChecksum.flatMap { alg in part.checksum.map { (alg, $0) } }
        let headers = TusProtocol.patchHeaders(offset: part.offset, length: part.length, checksum: checksum)
        let r = try await remote.http.send("PATCH", uploadURL, headers: headers, body: .stream(length: part.length, open: part.open))
        let detail = RemoteHTTP.detail((try? await r.collect(upTo: 4096)) ?? [])
        switch r.status {
        case 200, 204:
            // An answer without a plausible offset leaves us unsure what was stored: ask with HEAD.
            guard let offset = TusProtocol.offset(r.headers), offset > part.offset, offset <= part.offset + part.length else {
                throw RemoteError.offsetConflict(url: uploadURL)
            }
            return offset
        case 409: throw RemoteError.offsetConflict(url: uploadURL)
        case TusProtocol.checksumMismatchStatus: throw RemoteError.checksumMismatch(url: uploadURL)
        case 404, 410: throw RemoteError.uploadGone(url: uploadURL)
        default: throw RemoteError.status(r.status, method: "PATCH", url: uploadURL, detail: detail)
        }
    }

    /// Nothing to do: tus completes when the last PATCH brings the offset to the length. Servers may move the
    /// finished object into place and forget the upload resource, so a HEAD here could only mislead.
    func finish() async throws {}

    func abort() async throws {
        guard remote.options.supportsTermination else { return }
        try await remote.http.expect([200, 204, 404, 410], "DELETE", uploadURL, headers: TusProtocol.baseHeaders())
    }
}

import Foundation
import SkyliftHTTPClient
import SkyliftCore

/// A tus 1.0 endpoint: uploads are created by POST to ``creationURL`` with `filename` / `relativePath`
/// metadata, resumed from the server's `Upload-Offset` (HEAD), sent by PATCH and removed by DELETE
/// (termination). Where the server offers `block-checksum` (the embedded cloud does) the rest of a file goes
/// in one PATCH and every block is confirmed at the end (see `TusWrite`); elsewhere parts carry
/// `Upload-Checksum` when the server checks them. Where the server also offers `concatenation` and ``partials``
/// is above 1 (the user asked for parts), a file goes as that many partial uploads side by side (see
/// `TusConcatWrite`); by default it is one stream.
///
/// tus itself cannot stat, read or list; when the same folder also speaks WebDAV (the embedded server does),
/// those calls go to ``dav``.
public struct TusRemote: Remote {
    public var kind: RemoteKind { .tus }
    public let folderURL: URL
    /// Where uploads are created (the folder URL itself on the embedded server, a vendor's `/files/` elsewhere).
    public let creationURL: URL
    public let options: TusOptions
    public let http: RemoteHTTP
    /// The same folder over WebDAV, when offered.
    public let dav: WebDAVRemote?
    /// Upper bound on one PATCH body; parts are digested then streamed, so this bounds re-sends, not memory.
    public let partLength: Int64
    /// Partial uploads per file where the server offers `concatenation`; 1 sends one stream.
    public let partials: Int

    public init(folderURL: URL, creationURL: URL? = nil, options: TusOptions, http: RemoteHTTP, dav: WebDAVRemote? = nil,
                partLength: Int64 = 64 << 20, partials: Int = 1) {
        self.folderURL = RemotePath.folder(folderURL)
        self.creationURL = creationURL ?? folderURL
        self.options = options
        self.http = http
        self.dav = dav
        self.partLength = partLength
        self.partials = max(1, partials)
    }

    /// The block size and checksum a creation or HEAD answer names, when the size is one this client accepts
    /// and the checksum one it knows; an answer naming no checksum comes from a server that knows only SHA-256.
    static func blocks(_ headers: HTTPHeaders) -> TusWrite.Blocks? {
        guard let size = headers.integer(TusProtocol.Header.blockSize).flatMap(TusOptions.acceptedBlockSize) else { return nil }
        guard let name = headers[TusProtocol.Header.blockChecksum] else { return .init(size: size, checksum: .sha256) }
        return BlockChecksumAlgorithm(name: name).map { .init(size: size, checksum: $0) }
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
        if partials > 1, options.supportsConcatenation, let part = TusConcatWrite.partLength(length: length, count: partials) {
            return try await startConcat(name, length: length, partLength: part)
        }
        return try await create(name, length: length)
    }

    /// Creates one upload of `length` bytes (a partial upload with `concat`).
    func create(_ name: String, length: Int64, concat: TusProtocol.Concat? = nil) async throws -> TusWrite {
        let checksum = options.blockSize != nil && length > 0 ? options.blockChecksum : nil
        var headers = TusProtocol.creationHeaders(length: length, name: name, blockChecksum: checksum)
        if let concat { headers.set(TusProtocol.Concat.header, concat.headerValue) }
        let r = try await http.expect([200, 201], "POST", creationURL, headers: headers)
        guard let location = r.headers["Location"], let upload = URL(string: location, relativeTo: creationURL)?.absoluteURL else {
            throw RemoteError.protocolViolation(url: creationURL, reason: "upload created without a Location")
        }
        return TusWrite(remote: self, uploadURL: upload, length: length, blocks: checksum != nil ? Self.blocks(r.headers) : nil)
    }

    public func resumeWrite(_ name: String, length: Int64, token: String) async throws -> (any RemoteWrite)? {
        if token.hasPrefix(TusConcatWrite.tokenPrefix) { return try await resumeConcat(name, length: length, token: token) }
        guard let upload = URL(string: token) else { return nil }
        let probe = TusWrite(remote: self, uploadURL: upload, length: length, blocks: nil)
        do {
            let head = try await probe.head()
            if let l = head.length, l != length { return nil }
            return TusWrite(remote: self, uploadURL: upload, length: length, blocks: head.blocks)
        } catch let e as RemoteError where e.disposition == .restart {
            return nil
        }
    }
}

import Foundation
import SkyliftHTTPServer
import SkyliftHashing
import SkyliftCore
import SkyliftSystem
import Synchronization

/// tus 1.0.0 resumable uploads: creation (POST to a folder under `/dav/`), creation-with-upload,
/// creation-defer-length, termination, checksum (sha1, sha256), expiration, concatenation (see
/// `TusUploads+Concat`) and `block-checksum` (see `TusUploads+Blocks`), at `/uploads/<id>`. The wire format is `SkyliftCore.TusProtocol`, shared with the client.
///
/// State lives on disk (see ``TusUpload``), so uploads survive restarts; the only in-memory state is
/// which uploads a request is writing or removing: one at a time, the others get 423 (see `holding`).
final class TusUploads: Sendable {
    static let version = TusProtocol.version
    static let extensions = "creation,creation-with-upload,creation-defer-length,termination,checksum,expiration,"
        + TusProtocol.concatenationExtension + "," + TusProtocol.blockChecksumExtension
    static let offsetContentType = TusProtocol.offsetContentType

    let store: Store
    let expiry: TimeInterval
    let maxSize: Int64
    /// Ids of the uploads a request is writing (or removing) right now; see `holding`.
    let busy = Mutex<Set<String>>([])
    /// Whole-file digests of `block-checksum` uploads computed as their bytes arrive.
    let streamed = StreamedDigests()

    init(store: Store, expiry: TimeInterval, maxSize: Int64) {
        self.store = store
        self.expiry = expiry
        self.maxSize = maxSize
    }

    static func advertise(into h: inout HTTPHeaders, maxSize: Int64) {
        h.add(TusProtocol.Header.resumable, version)
        h.add(TusProtocol.Header.versions, version)
        h.add(TusProtocol.Header.extensions, extensions)
        h.add(TusProtocol.Header.maxSize, String(maxSize))
        h.add(TusProtocol.Header.checksumAlgorithms, "sha1,sha256")
        h.add(TusProtocol.Header.serverBlockSize, String(Self.blockSize))
        h.add(TusProtocol.Header.blockChecksumAlgorithms, BlockChecksumAlgorithm.allCases.map(\.rawValue).joined(separator: ","))
    }

    /// A small answer carrying `Tus-Resumable`, as every tus response must.
    static func tusResponse(_ status: Int, _ message: String? = nil, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var h = headers
        h.set(TusProtocol.Header.resumable, version)
        guard let message else { return HTTPResponse(status: status, headers: h) }
        return .text(status, message, headers: h)
    }

    func upload(_ id: String) -> TusUpload { TusUpload(id: id, directory: store.uploadsDirectory) }

    // MARK: Requests on /uploads/<id>

    func handle(_ request: HTTPRequest) -> HTTPHeadDecision {
        if request.method == "OPTIONS" {
            var h = HTTPHeaders()
            Self.advertise(into: &h, maxSize: maxSize)
            return .respond(HTTPResponse(status: 204, headers: h))
        }
        if let refusal = Self.versionRefusal(request) { return .respond(refusal) }
        let parts = request.path.split(separator: "/")
        guard parts.count == 2, TusUpload.isValidID(parts[1]) else { return .respond(Self.tusResponse(404, "no such upload")) }
        let upload = upload(String(parts[1]))
        switch request.method {
        case "HEAD": return .respond(head(upload))
        case "PATCH": return holding(upload) { self.patch(request, upload: upload) }
        case "DELETE":
            return holding(upload) {
                guard upload.loadInfo() != nil else { return .respond(Self.tusResponse(404, "no such upload")) }
                upload.remove()
                self.streamed.drop(upload.id)
                return .respond(Self.tusResponse(204))
            }
        default:
            guard upload.loadInfo() != nil else { return .respond(Self.tusResponse(404, "no such upload")) }
            var h = HTTPHeaders()
            h.add("Allow", "OPTIONS, HEAD, PATCH, DELETE")
            return .respond(Self.tusResponse(405, "\(request.method) not allowed on an upload", headers: h))
        }
    }

    private func head(_ upload: TusUpload) -> HTTPResponse {
        guard let info = upload.loadInfo(), let offset = upload.offset(info) else { return Self.tusResponse(404, "no such upload") }
        // An expired upload is removed only by whoever holds it; one being written is not expired.
        if isExpired(upload), claim(upload.id) {
            defer { unclaim(upload.id) }
            if isExpired(upload) {
                upload.remove()
                return Self.tusResponse(410, "upload expired")
            }
        }
        var h = HTTPHeaders()
        // A final upload is whole once it exists: its bytes are the partial uploads it joined.
        h.add(TusProtocol.Header.offset, String(info.final == nil ? offset : info.length ?? 0))
        if let concat = Self.concat(info) { h.add(TusProtocol.Concat.header, concat.headerValue) }
        if let length = info.length { h.add(TusProtocol.Header.length, String(length)) } else { h.add(TusProtocol.Header.deferLength, "1") }
        if !info.metadata.isEmpty { h.add(TusProtocol.Header.metadata, info.metadata) }
        addBlockHeaders(to: &h, info)
        h.add("Cache-Control", "no-store")
        addExpires(to: &h, upload)
        return Self.tusResponse(200, headers: h)
    }

    /// Called holding the upload's claim, so the offset read here is the one this request appends at and no
    /// other request can move it until the body is in.
    private func patch(_ request: HTTPRequest, upload: TusUpload) -> HTTPHeadDecision {
        guard var info = upload.loadInfo(), let offset = upload.offset(info) else { return .respond(Self.tusResponse(404, "no such upload")) }
        if info.final != nil { return .respond(Self.tusResponse(403, "a final upload (Upload-Concat: final) takes no PATCH")) }
        if isExpired(upload) {
            upload.remove()
            return .respond(Self.tusResponse(410, "upload expired"))
        }
        guard Self.mediaType(request) == Self.offsetContentType else {
            return .respond(Self.tusResponse(415, "PATCH needs Content-Type: \(Self.offsetContentType)"))
        }
        guard let claimed = request.headers.integer(TusProtocol.Header.offset) else {
            return .respond(Self.tusResponse(400, "PATCH needs a valid Upload-Offset"))
        }
        if info.blockSize != nil { return patchBlocks(request, upload: upload, info: info, offset: offset, claimed: claimed) }
        guard claimed == offset else {
            return .respond(Self.tusResponse(409, "Upload-Offset \(claimed) does not match the upload's offset \(offset)"))
        }
        if let lengthHeader = request.headers[TusProtocol.Header.length] {
            guard let length = Int64(digits: lengthHeader.trimmingSpaces()), length >= offset else {
                return .respond(Self.tusResponse(400, "invalid Upload-Length"))
            }
            if let known = info.length, known != length {
                return .respond(Self.tusResponse(400, "Upload-Length cannot change once set"))
            }
            if length > maxSize { return .respond(Self.tusResponse(413, "Upload-Length exceeds Tus-Max-Size \(maxSize)")) }
            if info.length == nil {
                info.length = length
                do { try upload.save(info) } catch { return .respond(Self.tusResponse(500, "cannot record Upload-Length")) }
            }
        }
        return receive(request, upload: upload, info: info, offset: offset, wrap: { $0 })
    }

    /// Starts a body into `upload` at `offset`, the caller holding the upload's claim (the receiver releases
    /// it); `wrap` adapts the success response (PATCH vs POST).
    func receive(_ request: HTTPRequest, upload: TusUpload, info: TusUpload.Info, offset: Int64,
                         wrap: @escaping (HTTPResponse) -> HTTPResponse) -> HTTPHeadDecision {
        if info.blockSize != nil { return receiveBlocks(request, upload: upload, info: info, offset: offset, wrap: wrap) }
        let checksum: TusPatchReceiver.Checksum?
        switch Self.parseChecksum(request.headers[TusProtocol.Header.checksum]) {
        case let .value(c): checksum = c
        case let .refused(response): return .respond(response)
        }
        let limit = info.length ?? maxSize
        if let bodyLength = request.contentLength, bodyLength > limit - offset { // no `offset + bodyLength`: it can overflow
            return .respond(Self.tusResponse(413, "body runs past the upload's length \(limit)"))
        }
        if let refusal = store.space.refusal(for: request.contentLength, at: "/uploads/\(upload.id)",
                                             headers: [TusProtocol.Header.resumable: Self.version]) {
            return .respond(refusal)
        }
        do {
            let receiver = try TusPatchReceiver(
                upload: upload, offset: offset, length: info.length ?? maxSize, checksum: checksum,
                done: { [self] response, completed in
                    var r = response
                    r.headers.set(TusProtocol.Header.resumable, Self.version)
                    if completed && info.length != nil {
                        if let failure = complete(upload, info: info) { return failure }
                    } else {
                        addExpires(to: &r.headers, upload)
                    }
                    return wrap(r)
                },
                release: { [self] in unclaim(upload.id) })
            return .receive(receiver)
        } catch {
            return .respond(Self.tusResponse(500, "cannot open upload data"))
        }
    }

    /// Moves the finished data file into place (creating folders as needed) and forgets the upload.
    /// Returns an error response when that is impossible; the upload then stays for a retry.
    /// A finished partial upload stays where it is, for a final upload to join (`TusUploads+Concat`).
    func complete(_ upload: TusUpload, info: TusUpload.Info) -> HTTPResponse? {
        if info.partial == true { return nil }
        if let failure = place(upload.dataPath, target: info.target, before: { recordDigests(upload, length: info.length) }) {
            return failure
        }
        upload.remove()
        return nil
    }

    /// Renames the file at `path` (in the uploads folder) to `segments` below the root, creating folders as
    /// needed and confined to the root; `before` runs just before the rename (digest records). The refusal
    /// when that is impossible.
    func place(_ path: String, target segments: [String], before: () -> Void) -> HTTPResponse? {
        let target = store.path(segments)
        guard let parent = target.parent, store.resolver.isConfined(target) else {
            return Self.tusResponse(403, "target leads outside the root")
        }
        do {
            try FileSystem.makeDirectories(parent.filePath)
            guard store.resolver.isConfined(target) else { return Self.tusResponse(403, "target leads outside the root") }
            // The last step goes through the folder's descriptor, so it lands where the check above looked.
            guard case let .success(place) = FileTree.locate(target, followLast: false) else {
                return Self.tusResponse(403, "target leads outside the root")
            }
            if place.stat()?.isDirectory == true {
                return Self.tusResponse(409, "a folder exists at \(target.relative)")
            }
            before()
            keepProperties(of: place, for: path)
            try servedMode(path)
            try FileDescriptor.currentDirectory.rename(path, to: place.name, in: place.folder, path: target.relative)
            try? place.folder.sync(path: target.relative)
        } catch {
            return Self.tusResponse(500, "cannot move upload into place at \(target.relative)")
        }
        return nil
    }

    /// An upload's data file is private (0600) while it is unfinished; in the tree it gets the mode a PUT's file
    /// gets (0644 less the umask), so a media server reading the folder can open it whichever way it came.
    private func servedMode(_ path: String) throws {
        let data = try FileSystem.open(path, .readOnly, .noFollow)
        defer { data.close() }
        do { try data.setPermissions(FileDescriptor.permissionsUnderUmask(0o644), path: path) } catch { throw FileSystemError(error) }
    }

    /// A file an upload replaces hands its dead properties to the new one, as a PUT's does.
    private func keepProperties(of place: Location, for path: String) {
        guard place.stat() != nil, let old = try? place.openEntry() else { return }
        defer { old.close() }
        guard let new = try? FileDescriptor.open(path, .readOnly, options: .noFollow) else { return }
        defer { new.close() }
        if (try? DeadProperties.copy(from: old, to: new, path: path)) != nil { try? new.sync(path: path) }
    }

    func addExpires(to h: inout HTTPHeaders, _ upload: TusUpload) {
        if let expires = upload.expires(after: expiry) { h.set(TusProtocol.Header.expires, HTTPDate.format(expires)) }
    }

    static func versionRefusal(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.headers[TusProtocol.Header.resumable]?.trimmingSpaces() != Self.version else { return nil }
        var h = HTTPHeaders()
        h.add(TusProtocol.Header.versions, Self.version)
        return Self.tusResponse(412, "Tus-Resumable must be \(Self.version)", headers: h)
    }

    static func mediaType(_ request: HTTPRequest) -> String? {
        request.headers["Content-Type"].map { String($0.prefix { $0 != ";" }).trimmingSpaces().lowercased() }
    }

    /// `Upload-Checksum` as a receiver checks it; a malformed or unknown one is refused with 400 (`crc32c` is
    /// for a block sent again, not a PATCH of a plain upload).
    static func parseChecksum(_ value: String?) -> Checked<TusPatchReceiver.Checksum?> {
        guard let value else { return .value(nil) }
        switch TusProtocol.parseChecksum(value) {
        case let .success(sum):
            guard let algorithm = DigestAlgorithm(rawValue: sum.algorithm), algorithm != .md5 else {
                return .refused(Self.tusResponse(400, "unsupported checksum algorithm \(sum.algorithm)"))
            }
            return .value(.init(algorithm: algorithm, expected: sum.digest))
        case .failure(.malformed): return .refused(Self.tusResponse(400, "malformed Upload-Checksum"))
        case let .failure(.unsupported(name)): return .refused(Self.tusResponse(400, "unsupported checksum algorithm \(name)"))
        }
    }
}

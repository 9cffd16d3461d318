import Foundation
import SkyliftHTTPServer
import SkyliftCore
import SkyliftSystem

/// Creation (POST to a folder under `/dav/`), with `creation-with-upload`, `creation-defer-length` and the
/// `block-checksum` opt-in (`Upload-Block-Checksum: crc32c` or `sha256`), and `Upload-Concat` (`partial` here;
/// `final` in `TusUploads+Concat`).
extension TusUploads {
    func create(_ request: HTTPRequest, folder: StoragePath) -> HTTPHeadDecision {
        if let refusal = Self.versionRefusal(request) { return .respond(refusal) }
        if let st = FileSystem.stat(folder.filePath), !st.isDirectory {
            return .respond(Self.tusResponse(409, "not a folder: \(folder.relative)"))
        }
        let partial: Bool
        switch concatenation(request, folder: folder) {
        case let .value(p): partial = p
        case let .refused(response): return .respond(response)
        }
        let length: Int64?
        switch declaredLength(request, folder: folder) {
        case let .value(l): length = l
        case let .refused(response): return .respond(response)
        }
        let metadataHeader = request.headers[TusProtocol.Header.metadata] ?? ""
        let target: StoragePath
        switch partial ? partialTarget(folder: folder, metadata: metadataHeader) : finalPath(folder: folder, metadata: metadataHeader) {
        case let .value(p): target = p
        case let .refused(response): return .respond(response)
        }
        var info = TusUpload.Info(length: length, metadata: metadataHeader, target: target.segments)
        if partial { info.partial = true }
        if let refusal = optIntoBlocks(request, length: length, info: &info) { return .respond(refusal) }
        sweepExpired()
        let upload = upload(TusUpload.newID())
        do {
            try FileSystem.open(upload.dataPath, .writeOnly, [.create, .exclusive], mode: 0o600).close()
            try upload.save(info)
        } catch {
            upload.remove()
            // The data file comes through FileSystem (FileSystemError), the info through AtomicFile (FileError).
            if (error as? FileSystemError)?.isNoSpace == true || (error as? FileError)?.isNoSpace == true {
                return .respond(Self.tusResponse(507, "insufficient storage for a new upload in \(folder.relative)"))
            }
            return .respond(Self.tusResponse(500, "cannot create upload"))
        }
        var h = HTTPHeaders()
        h.add("Location", "/uploads/\(upload.id)")
        let hasBody = (request.contentLength ?? 0) > 0 || request.headers["Transfer-Encoding"] != nil
        if hasBody, Self.mediaType(request) == Self.offsetContentType {
            return holding(upload) { self.receive(request, upload: upload, info: info, offset: 0, wrap: { r in
                var created = r
                created.status = r.status == 204 ? 201 : r.status
                for f in h { created.headers.add(f.name, f.value) }
                return created
            }) }
        }
        if length == 0, let failure = complete(upload, info: info) { return .respond(failure) }
        addBlockHeaders(to: &h, info)
        h.add(TusProtocol.Header.offset, "0")
        if length != 0 { addExpires(to: &h, upload) }
        return .respond(Self.tusResponse(201, headers: h))
    }

    /// The creation's `Upload-Length` (nil when deferred), refused when malformed, past `Tus-Max-Size`, or
    /// larger than the disk can take now (507 at creation, before any byte is sent).
    private func declaredLength(_ request: HTTPRequest, folder: StoragePath) -> Checked<Int64?> {
        let deferred = request.headers[TusProtocol.Header.deferLength]?.trimmingSpaces()
        guard let lengthHeader = request.headers[TusProtocol.Header.length] else {
            return deferred == "1" ? .value(nil) : .refused(Self.tusResponse(400, "POST needs Upload-Length or Upload-Defer-Length: 1"))
        }
        guard deferred == nil, let length = Int64(digits: lengthHeader.trimmingSpaces()) else {
            return .refused(Self.tusResponse(400, "invalid Upload-Length"))
        }
        guard length <= maxSize else { return .refused(Self.tusResponse(413, "Upload-Length exceeds Tus-Max-Size \(maxSize)")) }
        if let refusal = store.space.refusal(for: length, at: folder.relative, headers: [TusProtocol.Header.resumable: Self.version]) {
            return .refused(refusal)
        }
        return .value(length)
    }

    /// `Upload-Concat` of a creation: false without it, true for `partial`; a `final` creation is answered here
    /// (as a refusal, since it needs nothing more from `create`), and so is a malformed value.
    private func concatenation(_ request: HTTPRequest, folder: StoragePath) -> Checked<Bool> {
        guard let value = request.headers[TusProtocol.Concat.header] else { return .value(false) }
        switch TusProtocol.Concat.parse(value) {
        case .success(.partial): return .value(true)
        case let .success(.final(urls)): return .refused(createFinal(request, folder: folder, urls: urls))
        case let .failure(refusal): return .refused(Self.tusResponse(400, refusal.description))
        }
    }

    /// A partial upload lands nowhere itself (its final upload names the file): its target is the folder, and
    /// its metadata need only be well-formed.
    private func partialTarget(folder: StoragePath, metadata: String) -> Checked<StoragePath> {
        TusProtocol.parseMetadata(metadata) == nil ? .refused(Self.tusResponse(400, "malformed Upload-Metadata")) : .value(folder)
    }

    /// `Upload-Block-Checksum`: sets up `block-checksum` in `info` with the algorithm asked for; the refusal
    /// when that is not one this server takes or the length is deferred.
    private func optIntoBlocks(_ request: HTTPRequest, length: Int64?, info: inout TusUpload.Info) -> HTTPResponse? {
        guard let asked = request.headers[TusProtocol.Header.blockChecksum] else { return nil }
        guard let algorithm = BlockChecksumAlgorithm(name: asked) else {
            let names = BlockChecksumAlgorithm.allCases.map(\.rawValue).joined(separator: " or ")
            return Self.tusResponse(400, "block-checksum needs \(names)")
        }
        guard let length else { return Self.tusResponse(400, "block-checksum needs Upload-Length") }
        if length > 0 {
            (info.blockSize, info.confirmedBlocks, info.badBlocks) = (Self.blockSize, 0, [])
            info.blockChecksum = algorithm.rawValue
        }
        return nil
    }

    /// The folder plus `filename`, under the optional `relativePath` (which may itself end in the file name).
    func finalPath(folder: StoragePath, metadata: String) -> Checked<StoragePath> {
        guard let pairs = TusProtocol.parseMetadata(metadata) else { return .refused(Self.tusResponse(400, "malformed Upload-Metadata")) }
        guard let filename = pairs["filename"], !filename.isEmpty else {
            return .refused(Self.tusResponse(400, "Upload-Metadata needs a filename"))
        }
        var segments: [String] = []
        if let relative = pairs["relativePath"] {
            switch store.resolver.validate(segmentsOf: relative) {
            case let .success(s): segments = s
            case let .failure(refusal): return .refused(Self.tusResponse(refusal.status, "relativePath: \(refusal.message)"))
            }
            if segments.last == filename { segments.removeLast() }
        }
        guard case let .success(name) = store.resolver.validate(segmentsOf: filename), name.count == 1 else {
            return .refused(Self.tusResponse(403, "filename must be a single plain name"))
        }
        let target = store.path(folder.segments + segments + name)
        guard store.resolver.isConfined(target) else { return .refused(Self.tusResponse(403, "path leads outside the root")) }
        return .value(target)
    }
}

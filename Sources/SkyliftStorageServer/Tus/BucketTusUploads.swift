import Foundation
import SkyliftCore
import SkyliftHTTPServer
import SkyliftSystem
import Synchronization

/// tus 1.0.0 uploads into a bucket: creation (POST to a folder under `/dav/`), creation-with-upload,
/// creation-defer-length, termination, expiration and concatenation (`BucketTusUploads+Concat`), at
/// `/uploads/<id>`, and `checksum` (`BucketTusUploads+Checksum`) and `block-checksum` (`BucketTusUploads+Blocks`).
///
/// An upload is an ``S3Store`` resumable write, whose state lives in the bucket (its whole parts, its tail, its
/// record), so any instance serving the bucket continues, finishes or ends an upload any other began, and an
/// instance killed mid-PATCH loses at most the part it was sending: the client's next HEAD, on any instance, gives
/// the offset the bucket holds. The only state kept here is which uploads this instance's requests are writing
/// (423 for a second one at once).
final class BucketTusUploads: Sendable {
    static let extensions = "creation,creation-with-upload,creation-defer-length,termination,checksum,expiration,"
        + TusProtocol.concatenationExtension + "," + TusProtocol.blockChecksumExtension

    let backend: BucketBackend
    let resolver: PathResolver
    /// Seconds an upload may stay idle before it expires (410 on its next request, removed by the sweep).
    let expiry: TimeInterval
    let maxSize: Int64
    /// Ids of the uploads a request of this instance is writing or removing right now.
    private let busy = Mutex<Set<String>>([])
    /// When this instance last swept expired uploads from the bucket.
    private let lastSweep = Mutex<Date?>(nil)

    init(backend: BucketBackend, resolver: PathResolver, expiry: TimeInterval, maxSize: Int64) {
        self.backend = backend
        self.resolver = resolver
        self.expiry = expiry
        self.maxSize = maxSize
    }

    /// The OPTIONS headers: a block of `block-checksum` is a part of the store's multipart writes.
    func advertise(into h: inout HTTPHeaders) {
        h.add(TusProtocol.Header.resumable, TusUploads.version)
        h.add(TusProtocol.Header.versions, TusUploads.version)
        h.add(TusProtocol.Header.extensions, Self.extensions)
        h.add(TusProtocol.Header.maxSize, String(maxSize))
        h.add(TusProtocol.Header.checksumAlgorithms, "sha1,sha256")
        h.add(TusProtocol.Header.serverBlockSize, String(backend.store.partSize))
        h.add(TusProtocol.Header.blockChecksumAlgorithms, BlockChecksumAlgorithm.allCases.map(\.rawValue).joined(separator: ","))
    }

    static func tus(_ status: Int, _ message: String? = nil, headers: HTTPHeaders = [:]) -> HTTPResponse {
        TusUploads.tusResponse(status, message, headers: headers)
    }

    /// A bucket upload's id: the UUID its resumable write was given, in lower case.
    static func isValidID(_ id: Substring) -> Bool {
        id.utf8.count == 36 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || $0 == UInt8(ascii: "-") }
    }

    // MARK: Requests on /uploads/<id> (called on a work thread)

    func handle(_ request: HTTPRequest) -> HTTPHeadDecision {
        if request.method == "OPTIONS" {
            var h = HTTPHeaders()
            advertise(into: &h)
            return .respond(HTTPResponse(status: 204, headers: h))
        }
        if let refusal = TusUploads.versionRefusal(request) { return .respond(refusal) }
        let parts = request.path.split(separator: "/")
        guard parts.count == 2, Self.isValidID(parts[1]) else { return .respond(Self.tus(404, "no such upload")) }
        let id = String(parts[1])
        switch request.method {
        case "HEAD": return .respond(head(id))
        case "PATCH":
            guard claim(id) else { return .respond(Self.tus(423, "another request is writing this upload")) }
            let decision = patch(request, id: id)
            if case .receive = decision { return decision } // the job releases the claim when it ends
            unclaim(id)
            return decision
        case "DELETE":
            guard claim(id) else { return .respond(Self.tus(423, "another request is writing this upload")) }
            defer { unclaim(id) }
            let store = backend.store
            switch run("end upload", { try await store.abortResumable(id) }) {
            case .value: return .respond(Self.tus(204))
            case let .refused(response): return .respond(response)
            }
        default:
            var h = HTTPHeaders()
            h.add("Allow", "OPTIONS, HEAD, PATCH, DELETE")
            return .respond(Self.tus(405, "\(request.method) not allowed on an upload", headers: h))
        }
    }

    private func head(_ id: String) -> HTTPResponse {
        let state: S3StoreResumableState
        switch current(id) {
        case let .value(s): state = s
        case let .refused(response): return response
        }
        var h = HTTPHeaders()
        h.add(TusProtocol.Header.offset, String(state.offset))
        if let length = state.upload.length { h.add(TusProtocol.Header.length, String(length)) } else { h.add(TusProtocol.Header.deferLength, "1") }
        if let metadata = state.upload.metadata, !metadata.isEmpty { h.add(TusProtocol.Header.metadata, metadata) }
        if let joined = state.upload.joined {
            h.add(TusProtocol.Concat.header, TusProtocol.Concat.final(joined.map { "/uploads/\($0)" }).headerValue)
        } else if state.upload.partial == true {
            h.add(TusProtocol.Concat.header, TusProtocol.Concat.partial.headerValue)
        }
        addBlockHeaders(to: &h, state.upload)
        h.add("Cache-Control", "no-store")
        addExpires(to: &h, from: state.lastActive)
        return Self.tus(200, headers: h)
    }

    /// Called holding the upload's claim, which the append's job gives back when it ends.
    private func patch(_ request: HTTPRequest, id: String) -> HTTPHeadDecision {
        guard TusUploads.mediaType(request) == TusUploads.offsetContentType else {
            return .respond(Self.tus(415, "PATCH needs Content-Type: \(TusUploads.offsetContentType)"))
        }
        guard let claimed = request.headers.integer(TusProtocol.Header.offset) else {
            return .respond(Self.tus(400, "PATCH needs a valid Upload-Offset"))
        }
        var state: S3StoreResumableState
        switch current(id) {
        case let .value(s): state = s
        case let .refused(response): return .respond(response)
        }
        if state.upload.joined != nil { return .respond(Self.tus(403, "a final upload (Upload-Concat: final) takes no PATCH")) }
        if let lengthHeader = request.headers[TusProtocol.Header.length] {
            guard let length = Int64(digits: lengthHeader.trimmingSpaces()), length >= state.offset else {
                return .respond(Self.tus(400, "invalid Upload-Length"))
            }
            if let known = state.upload.length, known != length { return .respond(Self.tus(400, "Upload-Length cannot change once set")) }
            if length > maxSize { return .respond(Self.tus(413, "Upload-Length exceeds Tus-Max-Size \(maxSize)")) }
            if state.upload.length == nil {
                let store = backend.store
                switch run("set the length of", { try await store.setResumableLength(id, length) }) {
                case let .value(s): state = s
                case let .refused(response): return .respond(response)
                }
                state.upload.length = length
            }
        }
        if state.upload.blockAlgorithm != nil { return patchBlocks(request, id: id, state: state, claimed: claimed) }
        guard claimed == state.offset else {
            return .respond(Self.tus(409, "Upload-Offset \(claimed) does not match the upload's offset \(state.offset)"))
        }
        return receive(request, id: id, offset: state.offset, length: state.upload.length, wrap: { $0 })
    }

    /// Starts a body into upload `id` at `offset`, the caller holding its claim; once the body is in and the
    /// upload has all its `length`, it is finished into place, unless it has `blocks` to be confirmed first (then
    /// the answer carries their headers). `wrap` adapts the success answer (PATCH or POST). A body with
    /// `Upload-Checksum` is checked whole before it is stored (`BucketTusUploads+Checksum`).
    func receive(_ request: HTTPRequest, id: String, offset: Int64, length: Int64?, blocks: S3StoreUpload? = nil,
                 wrap: @escaping (HTTPResponse) -> HTTPResponse) -> HTTPHeadDecision {
        if request.headers[TusProtocol.Header.checksum] != nil {
            // Never accept a checksum without checking it: a block-checksum upload's data is checked by block.
            guard blocks?.blockAlgorithm == nil else {
                return .respond(Self.tus(400, "Upload-Checksum goes only with a block sent again; data is checked by \(TusProtocol.Header.blockDigests)"))
            }
            return receiveChecked(request, id: id, offset: offset, length: length, wrap: wrap)
        }
        let finishes = blocks?.blockAlgorithm == nil
        let limit = (length ?? maxSize) - offset
        if let bodyLength = request.contentLength, bodyLength > limit {
            return .respond(Self.tus(413, "body runs past the upload's length \(length ?? maxSize)"))
        }
        let store = backend.store
        let intake = BucketIntake<Int64>(executor: backend.executor, maxSize: limit, job: { [self] body in
            defer { unclaim(id) }
            let reached = try await store.append(id, at: offset, body: body)
            if finishes, let length, reached == length { try await store.finishResumable(id) }
            return reached
        }, respond: { [self] outcome in
            switch outcome {
            case let .success(reached):
                var h = HTTPHeaders()
                h.add(TusProtocol.Header.offset, String(reached))
                if reached != length || !finishes { addExpires(to: &h, from: Date()) }
                if let blocks { addBlockHeaders(to: &h, blocks) }
                return wrap(Self.tus(204, headers: h))
            case let .failure(error):
                return Self.refusal(error, operation: "store")
            }
        })
        return .receive(intake)
    }

    // MARK: Creation (called on a work thread)

    /// A POST to `folder`: a new upload of the file named by `Upload-Metadata` (`filename`, under an optional
    /// `relativePath`), with its first bytes when the request has a body.
    func create(_ request: HTTPRequest, folder: StoragePath) -> HTTPHeadDecision {
        if let refusal = TusUploads.versionRefusal(request) { return .respond(refusal) }
        var partial = false
        if let value = request.headers[TusProtocol.Concat.header] {
            switch TusProtocol.Concat.parse(value) {
            case .success(.partial): partial = true
            case let .success(.final(urls)): return .respond(createFinal(request, folder: folder, urls: urls))
            case let .failure(refusal): return .respond(Self.tus(400, refusal.description))
            }
        }
        let length: Int64?
        switch declaredLength(request) {
        case let .value(l): length = l
        case let .refused(response): return .respond(response)
        }
        let blocks: BlockChecksumAlgorithm?
        switch blockChecksum(request, length: length) {
        case let .value(b): blocks = b
        case let .refused(response): return .respond(response)
        }
        let metadata = request.headers[TusProtocol.Header.metadata] ?? ""
        let target: StoragePath
        if partial {
            // A piece lands nowhere itself (the final upload names the file): its metadata need only be well-formed.
            guard TusProtocol.parseMetadata(metadata) != nil else { return .respond(Self.tus(400, "malformed Upload-Metadata")) }
            target = folder
        } else {
            switch targetPath(folder: folder, metadata: metadata) {
            case let .value(p): target = p
            case let .refused(response): return .respond(response)
            }
            if let refusal = conflict(folder: folder, target: target) { return .respond(refusal) }
        }
        sweepNow()
        let store = backend.store, key = BucketBackend.key(target), isPartial = partial, checked = blocks
        let upload: S3StoreUpload
        switch run("begin an upload of", { try await store.beginResumable(key, length: length, metadata: metadata, partial: isPartial, blocks: checked) }) {
        case let .value(u): upload = u
        case let .refused(response): return .respond(response)
        }
        var h = HTTPHeaders()
        h.add("Location", "/uploads/\(upload.id)")
        let hasBody = (request.contentLength ?? 0) > 0 || request.headers["Transfer-Encoding"] != nil
        if hasBody, TusUploads.mediaType(request) == TusUploads.offsetContentType, claim(upload.id) {
            return receive(request, id: upload.id, offset: 0, length: length, blocks: upload, wrap: { r in
                var created = r
                created.status = r.status == 204 ? 201 : r.status
                for f in h { created.headers.add(f.name, f.value) }
                return created
            })
        }
        if length == 0 {
            if case let .refused(response) = run("store", { try await store.finishResumable(upload.id) }) { return .respond(response) }
        } else {
            addExpires(to: &h, from: Date())
        }
        addBlockHeaders(to: &h, upload)
        h.add(TusProtocol.Header.offset, "0")
        return .respond(Self.tus(201, headers: h))
    }

    /// The creation's `Upload-Length` (nil when deferred), refused when malformed or past `Tus-Max-Size`.
    private func declaredLength(_ request: HTTPRequest) -> Checked<Int64?> {
        guard let lengthHeader = request.headers[TusProtocol.Header.length] else {
            guard request.headers[TusProtocol.Header.deferLength]?.trimmingSpaces() == "1" else {
                return .refused(Self.tus(400, "POST needs Upload-Length or Upload-Defer-Length: 1"))
            }
            return .value(nil)
        }
        guard request.headers[TusProtocol.Header.deferLength] == nil, let length = Int64(digits: lengthHeader.trimmingSpaces()) else {
            return .refused(Self.tus(400, "invalid Upload-Length"))
        }
        guard length <= maxSize else { return .refused(Self.tus(413, "Upload-Length exceeds Tus-Max-Size \(maxSize)")) }
        return .value(length)
    }

    /// The folder plus `filename`, under the optional `relativePath` (which may itself end in the file name).
    func targetPath(folder: StoragePath, metadata: String) -> Checked<StoragePath> {
        guard let pairs = TusProtocol.parseMetadata(metadata) else { return .refused(Self.tus(400, "malformed Upload-Metadata")) }
        guard let filename = pairs["filename"], !filename.isEmpty else { return .refused(Self.tus(400, "Upload-Metadata needs a filename")) }
        var segments: [String] = []
        if let relative = pairs["relativePath"] {
            switch resolver.validate(segmentsOf: relative) {
            case let .success(s): segments = s
            case let .failure(refusal): return .refused(Self.tus(refusal.status, "relativePath: \(refusal.message)"))
            }
            if segments.last == filename { segments.removeLast() }
        }
        guard case let .success(name) = resolver.validate(segmentsOf: filename), name.count == 1 else {
            return .refused(Self.tus(403, "filename must be a single plain name"))
        }
        return .value((segments + name).reduce(folder) { $0.appending($1) })
    }

    /// 409 when a file stands where the upload needs a folder (the folder posted to, or one `relativePath` adds)
    /// or a folder stands where the file goes: S3 would take the keys, and the store would hold a file and a
    /// folder in each other's way.
    func conflict(folder: StoragePath, target: StoragePath) -> HTTPResponse? {
        do {
            var level = folder
            while level != target, target.segments.count > level.segments.count {
                if !level.isRoot, try backend.item(level)?.isFolder == false { return Self.tus(409, "not a folder: \(level.relative)") }
                level = level.appending(target.segments[level.segments.count])
            }
            if try backend.item(target)?.isFolder == true { return Self.tus(409, "a folder exists at \(target.relative)") }
        } catch {
            return Self.tus(error.status, error.message)
        }
        return nil
    }

    // MARK: State

    /// Where upload `id` stands; 404 when there is none, 410 (and the upload ended) when it has expired.
    private func current(_ id: String) -> Checked<S3StoreResumableState> {
        let store = backend.store
        switch run("look up upload", { try await store.resumableState(id) }) {
        case let .value(state):
            guard isExpired(state) else { return .value(state) }
            _ = run("end upload", { try await store.abortResumable(id) })
            return .refused(Self.tus(410, "upload expired"))
        case let .refused(response):
            return .refused(response)
        }
    }

    private func isExpired(_ state: S3StoreResumableState) -> Bool {
        state.lastActive.map { $0.addingTimeInterval(expiry) < Date() } ?? false
    }

    func addExpires(to h: inout HTTPHeaders, from lastActive: Date?) {
        guard let lastActive else { return }
        h.set(TusProtocol.Header.expires, HTTPDate.format(lastActive.addingTimeInterval(expiry)))
    }

    /// Sweeps uploads idle past their expiry from the bucket, in the background, at most once per expiry period
    /// (an hour at least: plain PUTs' multipart writes share the records and refresh theirs every
    /// ``S3Store/uploadHeartbeat``).
    private func sweepNow() {
        let idle = max(expiry, 3600), now = Date()
        let due = lastSweep.withLock { last -> Bool in
            if let last, now.timeIntervalSince(last) < idle { return false }
            last = now
            return true
        }
        guard due else { return }
        let store = backend.store
        Task.detached { _ = try? await store.sweepAbandonedUploads(idleFor: idle) }
    }

    func claim(_ id: String) -> Bool { busy.withLock { $0.insert(id).inserted } }
    func unclaim(_ id: String) { _ = busy.withLock { $0.remove(id) } }

    /// Runs `work` against the bucket and waits for it; a failure becomes its tus answer.
    func run<T: Sendable>(_ operation: String, _ work: @escaping @Sendable () async throws -> T) -> Checked<T> {
        do {
            return .value(try backend.executor.runBlocking(timeout: backend.timeout, work))
        } catch {
            return .refused(Self.refusal(error, operation: operation))
        }
    }

    /// The answer to a bucket operation that failed: 404 for an upload that is gone, 409 for a wrong offset or
    /// length, 504 when the bucket did not answer in time, else 502 naming what failed.
    static func refusal(_ error: any Error, operation: String) -> HTTPResponse {
        if error is BlockingExecutor.TimedOut { return tus(504, "the bucket did not answer in time to \(operation)") }
        guard let error = error as? S3StoreError else { return tus(502, "cannot \(operation) in the bucket: \(error)") }
        switch error.reason {
        case .notFound: return tus(404, "no such upload")
        case let .wrongOffset(current):
            return tus(409, "Upload-Offset does not match the upload's offset \(current)", headers: [TusProtocol.Header.offset: String(current)])
        case .lengthMismatch: return tus(413, "\(error)")
        case .conflict: return tus(409, "\(error)")
        case .unfinished: return tus(error.status ?? 409, "\(error)")
        default:
            if error.status == 404 { return tus(404, "no such upload") }
            return tus(502, "cannot \(operation) in the bucket: \(error)")
        }
    }
}

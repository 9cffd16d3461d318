import Foundation
import SkyliftHTTPServer
import SkyliftCore
import SkyliftSystem

/// WebDAV class 1 and 2 (RFC 4918) over the store: PUT, DELETE, MKCOL and lock checks here; properties,
/// copy/move and locking in their own files.
final class WebDAV: Sendable {
    let store: Store
    let maxUploadSize: Int64
    let locks: LockTable
    let properties: DeadProperties
    let digests: DigestStore
    /// PROPFIND, through the store interface.
    let listing: PropertyListing

    init(store: Store, backend: FolderBackend, maxUploadSize: Int64, locks: LockTable) {
        self.store = store
        self.maxUploadSize = maxUploadSize
        digests = backend.digests
        properties = backend.properties
        self.locks = locks
        listing = PropertyListing(backend: backend, locks: locks)
    }

    func handle(_ request: HTTPRequest, target: StoragePath) -> HTTPHeadDecision {
        switch request.method {
        case "PUT": return put(request, target: target)
        case "DELETE": return .respond(delete(request, target: target))
        case "MKCOL": return mkcol(request, target: target)
        case "PROPFIND": return withBody(request, limit: Self.propfindBodyLimit) { self.listing.propfind(request, target: target, body: $0) }
        case "PROPPATCH": return withBody(request, limit: Self.proppatchBodyLimit) { self.proppatch(request, target: target, body: $0) }
        case "COPY", "MOVE": return .respond(copyOrMove(request, source: target))
        case "LOCK": return withBody(request, limit: Self.lockBodyLimit) { self.lock(request, target: target, body: $0) }
        case "UNLOCK": return .respond(unlock(request, target: target))
        default:
            return .respond(.text(405, "method \(request.method) not allowed on \(target.relative)",
                                  headers: ["Allow": Self.allowedMethods.joined(separator: ", ")]))
        }
    }

    /// The methods a path under `/dav/` answers (POST creates a tus upload in a folder).
    static let allowedMethods = ["OPTIONS", "GET", "HEAD", "POST", "PUT", "DELETE", "PROPFIND", "PROPPATCH", "MKCOL", "COPY",
                                 "MOVE", "LOCK", "UNLOCK"]

    /// Largest XML bodies read: a PROPFIND names properties, a LOCK carries an owner of at most
    /// `LockTable.maxOwnerBytes`; only PROPPATCH brings values worth storing.
    static let propfindBodyLimit = 64 << 10
    static let lockBodyLimit = 16 << 10
    static let proppatchBodyLimit = XMLLimits.davRequest.maxBytes

    private func withBody(_ request: HTTPRequest, limit: Int, _ answer: @escaping ([UInt8]) -> HTTPResponse) -> HTTPHeadDecision {
        if let length = request.contentLength, length > Int64(limit) { return .respond(BodyCollector.tooLarge(limit, kind: "XML")) }
        return .receive(BodyCollector(limit: limit, kind: "XML", answer: answer))
    }

    // MARK: Lock and If-header checks

    /// A path the request changes, and how: `subtree` when everything below goes too, `membership` when the
    /// parent collection gains or loses a member.
    struct Change {
        var path: StoragePath
        var subtree = false
        var membership = false
    }

    /// 412 when the `If` header does not hold, 423 when a lock on a changed path was not submitted; nil to go on.
    func checkLocks(_ request: HTTPRequest, target: StoragePath, changes: [Change]) -> HTTPResponse? {
        var submitted: Set<String> = []
        if let value = request.headers["If"] {
            guard let header = IfHeader(value) else { return .text(400, "malformed If header") }
            let holds = header.evaluate(
                requestPath: target,
                resolve: { uri in if case let .success(p) = self.store.resolver.resolve(destination: uri) { p } else { nil } },
                etag: { FileSystem.stat($0.filePath)?.etag },
                locks: { Set(self.locks.covering($0).map(\.token)) })
            guard holds else { return .text(412, "If header condition failed") }
            submitted = header.tokens
        }
        for change in changes {
            for lock in locks.affecting(change.path, subtree: change.subtree, membership: change.membership)
            where !submitted.contains(lock.token) {
                return DAVXML.error(423, condition: "lock-token-submitted", href: lock.root.href(collection: false))
            }
        }
        return nil
    }

    // MARK: PUT, DELETE, MKCOL

    private func put(_ request: HTTPRequest, target: StoragePath) -> HTTPHeadDecision {
        guard let parent = target.parent else { return .respond(.text(405, "cannot PUT the root collection")) }
        // RFC 9110 §14.5: a partial PUT that is not understood must not be taken as a whole-file replacement.
        if request.headers["Content-Range"] != nil { return .respond(.text(400, "PUT with Content-Range is not supported")) }
        let existing = FileSystem.stat(target.filePath)
        if existing?.isDirectory == true { return .respond(.text(405, "a collection exists at \(target.relative)")) }
        guard FileSystem.stat(parent.filePath)?.isDirectory == true else {
            return .respond(.text(409, "parent collection missing: \(parent.relative)"))
        }
        if let refusal = checkLocks(request, target: target, changes: [Change(path: target, membership: existing == nil)]) {
            return .respond(refusal)
        }
        if let status = Preconditions.evaluate(request, stat: existing) {
            return .respond(.text(status, "precondition failed for \(target.relative)"))
        }
        if let length = request.contentLength, length > maxUploadSize {
            return .respond(.text(413, "body larger than \(maxUploadSize) bytes"))
        }
        if let refusal = store.space.refusal(for: request.contentLength, at: target.relative) { return .respond(refusal) }
        do {
            return .receive(try PutReceiver(target: target, maxSize: maxUploadSize, digests: digests,
                                            expected: ServerDigest.sha256(request.headers)))
        } catch {
            return .respond(PutReceiver.response(for: error, path: target))
        }
    }

    private func delete(_ request: HTTPRequest, target: StoragePath) -> HTTPResponse {
        if target.isRoot { return .text(403, "cannot delete the root collection") }
        // A link is removed itself, never what it points at; nothing below a folder is followed.
        guard let entry = FileTree.entry(target) else { return .text(404, "not found: \(target.relative)") }
        if let refusal = checkLocks(request, target: target, changes: [Change(path: target, subtree: true, membership: true)]) {
            return refusal
        }
        if let status = Preconditions.evaluate(request, stat: entry.stat) {
            return .text(status, "precondition failed for \(target.relative)")
        }
        // One rename takes the whole entry out of the tree, so a crash can never leave half a folder under
        // its name; the hidden remains are removed now, or by the start-up sweep after a crash.
        let trash = FileSystem.tempName(kind: "trash")
        let folder = entry.own.folder
        do throws(FileError) { try folder.rename(entry.own.name, to: trash, in: folder, path: target.relative) } catch {
            return .text(500, "cannot delete \(target.relative): \(error.errno?.description ?? "rename failed")")
        }
        try? folder.sync(path: target.relative)
        locks.removeAll(under: target)
        // A tree nested deeper than the walk goes keeps its deepest part under the hidden name.
        try? FileSystem.removeTree(in: entry.own.folder, trash)
        return HTTPResponse(status: 204)
    }

    private func mkcol(_ request: HTTPRequest, target: StoragePath) -> HTTPHeadDecision {
        // RFC 4918 §9.3: a body we do not understand is 415; only an empty one is accepted.
        if let length = request.contentLength, length > 0 { return .respond(.text(415, "MKCOL with a body is not supported")) }
        if request.headers["Transfer-Encoding"] != nil { return .respond(.text(415, "MKCOL with a body is not supported")) }
        if FileSystem.stat(target.filePath) != nil { return .respond(.text(405, "already exists: \(target.relative)")) }
        guard let parent = target.parent, FileSystem.stat(parent.filePath)?.isDirectory == true else {
            return .respond(.text(409, "parent collection missing for \(target.relative)"))
        }
        if let refusal = checkLocks(request, target: target, changes: [Change(path: target, membership: true)]) {
            return .respond(refusal)
        }
        do { try FileSystem.makeDirectory(target) } catch let e as FileSystemError {
            return .respond(e.isNoSpace ? .text(507, "insufficient storage for \(target.relative)") : .text(500, "cannot create \(target.relative)"))
        } catch { return .respond(.text(500, "cannot create \(target.relative)")) }
        if let parent = target.parent { Directory.sync(parent.filePath) }
        return .respond(.text(201, "created"))
    }
}

import Foundation
import SkyliftHTTPServer
import SkyliftCore
import SkyliftSystem

/// WebDAV class 1 and 2 (RFC 4918) over the folder store. PUT, DELETE, MKCOL, COPY, MOVE (``StoreWrites``) and
/// PROPFIND (``PropertyListing``) go through the store interface, shared with a bucket; PROPPATCH and locking work
/// on the folder, in their own files.
final class WebDAV: Sendable {
    let locks: LockTable
    let properties: DeadProperties
    /// PROPFIND, through the store interface.
    let listing: PropertyListing
    /// PUT, DELETE, MKCOL, COPY, MOVE and the lock checks, through the store interface.
    let writes: StoreWrites

    init(store: Store, backend: FolderBackend, maxUploadSize: Int64, locks: LockTable) {
        properties = backend.properties
        self.locks = locks
        listing = PropertyListing(backend: backend, locks: locks)
        writes = StoreWrites(backend: backend, locks: locks, resolver: store.resolver, maxUploadSize: maxUploadSize)
    }

    func handle(_ request: HTTPRequest, target: StoragePath) -> HTTPHeadDecision {
        switch request.method {
        case "PUT": return writes.put(request, target: target)
        case "DELETE": return .respond(writes.delete(request, target: target))
        case "MKCOL": return .respond(writes.mkcol(request, target: target))
        case "PROPFIND": return withBody(request, limit: Self.propfindBodyLimit) { self.listing.propfind(request, target: target, body: $0) }
        case "PROPPATCH": return withBody(request, limit: Self.proppatchBodyLimit) { self.proppatch(request, target: target, body: $0) }
        case "COPY", "MOVE": return .respond(writes.copyOrMove(request, source: target))
        case "LOCK": return withBody(request, limit: Self.lockBodyLimit) { self.writes.lock(request, target: target, body: $0) }
        case "UNLOCK": return .respond(writes.unlock(request, target: target))
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

    typealias Change = StoreWrites.Change

    /// 412 when the `If` header does not hold, 423 when a lock on a changed path was not submitted; nil to go on.
    func checkLocks(_ request: HTTPRequest, target: StoragePath, changes: [Change]) -> HTTPResponse? {
        writes.checkLocks(request, target: target, changes: changes)
    }
}

import Foundation
import SkyliftHTTPServer
import SkyliftCore
import SkyliftSystem

/// WebDAV class 1 and 2 (RFC 4918) over either store, through the store interface: PROPFIND
/// (``PropertyListing``), PUT, DELETE, MKCOL, COPY, MOVE, PROPPATCH, LOCK and UNLOCK (``StoreWrites``, which also
/// checks the `If` header and locks for every change). GET and HEAD are ``RangedGet``, POST tus.
final class WebDAV: Sendable {
    /// PROPFIND.
    let listing: PropertyListing
    /// Every method that changes something, and the lock checks.
    let writes: StoreWrites

    /// WebDAV over `backend`, its locks kept in `locks` (in memory for a folder, in the bucket for a bucket).
    init(backend: any StoreBackend, locks: LockTable, resolver: PathResolver, maxUploadSize: Int64) {
        listing = PropertyListing(backend: backend, locks: locks)
        writes = StoreWrites(backend: backend, locks: locks, resolver: resolver, maxUploadSize: maxUploadSize)
    }

    func handle(_ request: HTTPRequest, target: StoragePath) -> HTTPHeadDecision {
        switch request.method {
        case "PUT": return writes.put(request, target: target)
        case "DELETE": return .respond(writes.delete(request, target: target))
        case "MKCOL": return .respond(writes.mkcol(request, target: target))
        case "PROPFIND": return withBody(request, limit: Self.propfindBodyLimit) { self.listing.propfind(request, target: target, body: $0) }
        case "PROPPATCH": return withBody(request, limit: Self.proppatchBodyLimit) { self.writes.proppatch(request, target: target, body: $0) }
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

}

import Foundation
import SkyliftCore
import SkyliftHTTPServer

/// PUT, DELETE and MKCOL (RFC 9110 §9.3.4, §9.3.5; RFC 4918 §9.3, §9.6) over either store, with the `If` header
/// and lock checks every changing method makes: the checks and answers here, the changes in the ``StoreBackend``.
struct StoreWrites: Sendable {
    let backend: any StoreBackend
    let locks: LockTable
    let resolver: PathResolver
    let maxUploadSize: Int64

    /// A path the request changes, and how: `subtree` when everything below goes too, `membership` when the
    /// parent collection gains or loses a member.
    struct Change {
        var path: StoragePath
        var subtree = false
        var membership = false
    }

    /// 412 when the `If` header does not hold, 423 when a lock on a changed path was not submitted; nil to go on.
    /// The locks are read once, from where the store keeps them (a bucket's answer it cannot give is the refusal).
    func checkLocks(_ request: HTTPRequest, target: StoragePath, changes: [Change]) -> HTTPResponse? {
        var submitted: Set<String> = []
        let held: LockSet
        do { held = try locks.snapshot() } catch { return error.response }
        if let value = request.headers["If"] {
            guard let header = IfHeader(value) else { return .text(400, "malformed If header") }
            let holds = header.evaluate(
                requestPath: target,
                resolve: { uri in if case let .success(p) = resolver.resolve(destination: uri) { p } else { nil } },
                etag: { path in (try? backend.item(path))??.etag },
                locks: { Set(held.covering($0).map(\.token)) })
            guard holds else { return .text(412, "If header condition failed") }
            submitted = header.tokens
        }
        for change in changes {
            for lock in held.affecting(change.path, subtree: change.subtree, membership: change.membership)
            where !submitted.contains(lock.token) {
                return DAVXML.error(423, condition: "lock-token-submitted", href: lock.root.href(collection: false))
            }
        }
        return nil
    }

    func put(_ request: HTTPRequest, target: StoragePath) -> HTTPHeadDecision {
        guard let parent = target.parent else { return .respond(.text(405, "cannot PUT the root collection")) }
        // RFC 9110 §14.5: a partial PUT that is not understood must not be taken as a whole-file replacement.
        if request.headers["Content-Range"] != nil { return .respond(.text(400, "PUT with Content-Range is not supported")) }
        let existing: StoredItem?
        do {
            existing = try backend.item(target)
            if existing?.isFolder == true { return .respond(.text(405, "a collection exists at \(target.relative)")) }
            guard try backend.item(parent)?.isFolder == true else {
                return .respond(.text(409, "parent collection missing: \(parent.relative)"))
            }
        } catch { return .respond(error.response) }
        if let refusal = checkLocks(request, target: target, changes: [Change(path: target, membership: existing == nil)]) {
            return .respond(refusal)
        }
        if let status = ConditionalRequest.evaluate(method: request.method, headers: request.headers,
                                                    current: existing?.validators).status {
            return .respond(.text(status, "precondition failed for \(target.relative)"))
        }
        if let length = request.contentLength, length > maxUploadSize {
            return .respond(.text(413, "body larger than \(maxUploadSize) bytes"))
        }
        if let refusal = backend.spaceRefusal(for: request.contentLength, at: target) { return .respond(refusal) }
        do {
            return .receive(try backend.writer(target, existed: existing != nil, length: request.contentLength, maxSize: maxUploadSize,
                                               expectedSHA256: ServerDigest.sha256(request.headers)))
        } catch { return .respond(error.response) }
    }

    func delete(_ request: HTTPRequest, target: StoragePath) -> HTTPResponse {
        if target.isRoot { return .text(403, "cannot delete the root collection") }
        let item: StoredItem
        do {
            guard let found = try backend.item(target) else { return .text(404, "not found: \(target.relative)") }
            item = found
        } catch { return error.response }
        if let refusal = checkLocks(request, target: target, changes: [Change(path: target, subtree: true, membership: true)]) {
            return refusal
        }
        if let status = ConditionalRequest.evaluate(method: request.method, headers: request.headers, current: item.validators).status {
            return .text(status, "precondition failed for \(target.relative)")
        }
        do { try backend.remove(target) } catch { return error.response }
        forgetLocks(under: [target])
        return HTTPResponse(status: 204)
    }

    func mkcol(_ request: HTTPRequest, target: StoragePath) -> HTTPResponse {
        // RFC 4918 §9.3: a body we do not understand is 415; only an empty one is accepted.
        if let length = request.contentLength, length > 0 { return .text(415, "MKCOL with a body is not supported") }
        if request.headers["Transfer-Encoding"] != nil { return .text(415, "MKCOL with a body is not supported") }
        do {
            if try backend.item(target) != nil { return .text(405, "already exists: \(target.relative)") }
            guard let parent = target.parent, try backend.item(parent)?.isFolder == true else {
                return .text(409, "parent collection missing for \(target.relative)")
            }
        } catch { return error.response }
        if let refusal = checkLocks(request, target: target, changes: [Change(path: target, membership: true)]) { return refusal }
        do { try backend.makeFolder(target) } catch { return error.response }
        return .text(201, "created")
    }

    /// Drops the locks on `paths` and below, whose resources are gone. The change is made already, so a lock table
    /// the bucket cannot update now is left: its stale locks expire within ``LockTable/maxTimeout``.
    func forgetLocks(under paths: [StoragePath]) {
        guard !paths.isEmpty else { return }
        _ = try? locks.update { set in for path in paths { set.removeAll(under: path) } }
    }
}

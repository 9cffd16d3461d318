import Foundation
import SkyliftHTTPServer
import SkyliftCore
import SkyliftSystem

/// LOCK and UNLOCK (RFC 4918 §9.10, §9.11) over either store: exclusive and shared write locks, refresh, lock-null
/// creation. The locks live in the ``LockTable`` (a bucket's in the bucket), the empty file of a lock-null in the
/// ``StoreBackend``.
extension StoreWrites {
    func lock(_ request: HTTPRequest, target: StoragePath, body: [UInt8]) -> HTTPResponse {
        let timeout = DAVLock.timeout(request.headers["Timeout"])
        if body.isEmpty { return refresh(request, target: target, timeout: timeout) }
        let info: XMLTree
        do { info = try DAVXML.parse(body, root: "lockinfo", method: "LOCK") } catch { return error.response }
        guard let scope = DAVXML.child(info, "lockscope").flatMap({ DAVXML.children($0).first }),
              DAVXML.isDAV(scope, "exclusive") || DAVXML.isDAV(scope, "shared"),
              let type = DAVXML.child(info, "locktype").flatMap({ DAVXML.children($0).first }), DAVXML.isDAV(type, "write")
        else { return .text(400, "LOCK needs lockscope exclusive|shared and locktype write") }
        let depth = request.headers["Depth"]?.trimmingSpaces().lowercased() ?? "infinity"
        guard depth == "0" || depth == "infinity" else { return .text(400, "LOCK Depth must be 0 or infinity") }
        let existed: Bool
        do {
            existed = try backend.item(target) != nil
            if !existed {
                guard let parent = target.parent, try backend.item(parent)?.isFolder == true else {
                    return .text(409, "parent collection missing for \(target.relative)")
                }
            }
        } catch { return error.response }
        if request.headers["If"] != nil, let refusal = checkLocks(request, target: target, changes: []) { return refusal }
        let owner = DAVXML.child(info, "owner").map(DAVXML.standalone)
        if let owner, owner.utf8.count > LockTable.maxOwnerBytes {
            return .text(413, "LOCK owner is \(owner.utf8.count) bytes; at most \(LockTable.maxOwnerBytes) are kept")
        }
        let lock = DAVLock(token: LockTable.newToken(), root: target, infinite: depth == "infinity",
                           exclusive: DAVXML.isDAV(scope, "exclusive"), ownerXML: owner, timeout: timeout,
                           expires: Date().addingTimeInterval(TimeInterval(timeout)))
        let refusal: LockSet.Refusal?
        do { refusal = try locks.update { $0.add(lock) } } catch { return error.response }
        switch refusal {
        case let .conflict(other)?:
            return DAVXML.error(423, condition: "no-conflicting-lock", href: other.root.href(collection: false))
        case let .full(perResource, retryAfter)?:
            // Not 423: nothing conflicts, and the client cannot clear it; the table frees up as locks expire.
            let limit = perResource ? "\(LockTable.maxLocksPerResource) locks on \(target.relative)"
                                    : "\(LockTable.maxLocks) locks on this server"
            return .text(503, "LOCK refused: already \(limit); try again later", headers: ["Retry-After": String(retryAfter)])
        case nil: break
        }
        if !existed {
            // A lock on an unmapped URL creates an empty resource there (RFC 4918 §9.10.4).
            do { try backend.createEmpty(target) } catch {
                _ = try? locks.update { $0.remove(lock.token) }
                return error.response
            }
        }
        let prop = DAVXML.dav("prop", [DAVLock.discovery([lock])])
        return DAVXML.response(existed ? 200 : 201, prop, headers: ["Lock-Token": "<\(lock.token)>"])
    }

    private func refresh(_ request: HTTPRequest, target: StoragePath, timeout: Int) -> HTTPResponse {
        guard let value = request.headers["If"], let header = IfHeader(value) else {
            return .text(400, "LOCK without a body refreshes a lock and needs an If header naming it")
        }
        let refreshed: DAVLock?
        do {
            refreshed = try locks.update { set in
                let held = Set(set.covering(target).map(\.token))
                return header.tokens.first(where: held.contains).flatMap { set.refresh($0, timeout: timeout) }
            }
        } catch { return error.response }
        guard let lock = refreshed else { return .text(412, "no lock named in the If header covers \(target.relative)") }
        return DAVXML.response(200, DAVXML.dav("prop", [DAVLock.discovery([lock])]))
    }

    func unlock(_ request: HTTPRequest, target: StoragePath) -> HTTPResponse {
        guard let raw = request.headers["Lock-Token"]?.trimmingSpaces(), raw.hasPrefix("<"), raw.hasSuffix(">") else {
            return .text(400, "UNLOCK needs a Lock-Token header")
        }
        let token = String(raw.dropFirst().dropLast())
        let removed: Bool
        do {
            removed = try locks.update { set in
                guard let lock = set.lock(token), lock.covers(target) else { return false }
                return set.remove(lock.token)
            }
        } catch { return error.response }
        return removed ? HTTPResponse(status: 204) : DAVXML.error(409, condition: "lock-token-matches-request-uri")
    }
}

extension DAVLock {
    /// The `lockdiscovery` property listing `active`.
    static func discovery(_ active: [DAVLock]) -> XMLTree {
        DAVXML.dav("lockdiscovery", active.map { lock in
            var parts = [
                DAVXML.dav("locktype", [DAVXML.dav("write")]),
                DAVXML.dav("lockscope", [DAVXML.dav(lock.exclusive ? "exclusive" : "shared")]),
                DAVXML.dav("depth", text: lock.infinite ? "infinity" : "0"),
            ]
            if let owner = lock.ownerXML.flatMap(DAVXML.element) { parts.append(owner) }
            parts.append(DAVXML.dav("timeout", text: "Second-\(lock.timeout)"))
            parts.append(DAVXML.dav("locktoken", [DAVXML.dav("href", text: lock.token)]))
            parts.append(DAVXML.dav("lockroot", [DAVXML.dav("href", text: lock.root.href(collection: false))]))
            return DAVXML.dav("activelock", parts)
        })
    }

    /// `Timeout: Second-n, Infinite`: the first acceptable choice, capped at `LockTable.maxTimeout` (which is
    /// also what `Infinite` and a missing header get).
    static func timeout(_ value: String?) -> Int {
        for part in (value ?? "").split(separator: ",") {
            let p = part.trimmingCharacters(in: .whitespaces)
            if p.lowercased() == "infinite" { return LockTable.maxTimeout }
            if p.lowercased().hasPrefix("second-"), let n = Int(p.dropFirst(7)), n > 0 { return min(n, LockTable.maxTimeout) }
        }
        return LockTable.maxTimeout
    }
}

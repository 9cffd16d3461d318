import Foundation
import SkyliftHTTPServer

/// One writer per upload, and housekeeping that never races it: a request that writes or removes an upload
/// first claims its id; whoever holds the claim is the only one that reads the offset and changes the files.
extension TusUploads {
    /// Runs `work` as the upload's only writer. While another request holds the upload the answer is 423 Locked,
    /// as tusd answers: 409 would tell a tus client its offset is stale, and it would re-read the offset and
    /// write again, racing the request that is still writing. A decision that goes on to receive a body keeps
    /// the claim until its receiver is done; any other releases it at once.
    func holding(_ upload: TusUpload, _ work: () -> HTTPHeadDecision) -> HTTPHeadDecision {
        guard claim(upload.id) else { return .respond(Self.tusResponse(423, "another request is writing this upload")) }
        let decision = work()
        if case .receive = decision { return decision }
        unclaim(upload.id)
        return decision
    }

    /// Removes expired uploads, undoes unverified chunks left by a crash and removes joins a crash cut short.
    /// Cheap: one directory listing.
    func sweepExpired() {
        let now = Date()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: store.uploadsDirectory)) ?? [] {
            if name.hasSuffix(".joining") {
                // A final upload's join that no request holds was cut by a crash: its partial uploads are intact.
                let id = String(name.dropLast(8))
                if TusUpload.isValidID(Substring(id)), claim(id) {
                    defer { unclaim(id) }
                    FileSystem.unlink(upload(id).joiningPath)
                }
                continue
            }
            guard name.hasSuffix(".info") else { continue }
            let id = String(name.dropLast(5))
            guard TusUpload.isValidID(Substring(id)) else { continue }
            let u = upload(id)
            let pending = { FileManager.default.fileExists(atPath: u.pendingPath) }
            let expired = { u.expires(after: self.expiry).map { $0 < now } ?? true }
            // Only an upload that looks like it needs work is claimed (so a sweep seldom makes a PATCH wait),
            // and it is looked at again once held: a PATCH may have finished in between.
            guard pending() || expired(), claim(id) else { continue }
            defer { unclaim(id) }
            if pending() { u.recoverPending() }
            if expired() { u.remove() }
        }
    }

    /// Finishes or removes, before the first request, what a crash cut between two steps of an upload: a
    /// creation that made its data file but not its record (or only the record's temp file) is removed, and
    /// an upload whose every byte was in but that was not yet renamed into place is placed now, so a client
    /// that reads offset = length finds its file.
    func recoverAtStart() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store.uploadsDirectory)) ?? []
        for name in names where name.hasSuffix(".tmp") { FileSystem.unlink(store.uploadsDirectory + "/" + name) }
        let ids = Set(names.compactMap { name -> String? in
            let id = name.prefix { $0 != "." }
            return TusUpload.isValidID(id) ? String(id) : nil
        })
        for id in ids.sorted() {
            let u = upload(id)
            guard let info = u.loadInfo(), FileManager.default.fileExists(atPath: u.dataPath) else {
                u.remove()
                continue
            }
            if info.partial != true, info.final == nil, u.isFinished(info) { _ = complete(u, info: info) }
        }
    }

    /// True when the upload's last change is older than the expiry; decided while holding its claim.
    func isExpired(_ upload: TusUpload) -> Bool {
        upload.expires(after: expiry).map { $0 < Date() } ?? false
    }

    func claim(_ id: String) -> Bool { busy.withLock { $0.insert(id).inserted } }
    func unclaim(_ id: String) { _ = busy.withLock { $0.remove(id) } }
}

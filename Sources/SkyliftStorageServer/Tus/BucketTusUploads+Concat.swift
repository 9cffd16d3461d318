import Foundation
import SkyliftCore
import SkyliftHTTPServer

/// `concatenation` over a bucket: partial uploads (`Upload-Concat: partial`) are resumable writes whose finished
/// bytes wait at their staging key; the final upload (`Upload-Concat: final;<url> <url> …`) joins them in order
/// into the file its metadata names (``S3Store/concatenate(_:into:contentType:metadata:limit:)``: read back once,
/// the SHA-256 computed on the way), then the pieces go. `concatenation-unfinished` is not offered: every piece
/// named must be finished.
extension BucketTusUploads {
    /// Answers a final creation: 201 with the joined upload's `Location` once the file is in place; 400 for a list
    /// that is not all distinct upload URLs of this store, 409 when one is not a finished partial upload.
    func createFinal(_ request: HTTPRequest, folder: StoragePath, urls: [String]) -> HTTPResponse {
        if let refusal = TusUploads.finalRefusal(request) { return refusal }
        let metadata = request.headers[TusProtocol.Header.metadata] ?? ""
        let target: StoragePath
        switch targetPath(folder: folder, metadata: metadata) {
        case let .value(p): target = p
        case let .refused(response): return response
        }
        if let refusal = conflict(folder: folder, target: target) { return refusal }
        let ids: [String]
        switch TusUploads.partialIDs(urls, isValid: Self.isValidID) {
        case let .value(i): ids = i
        case let .refused(response): return response
        }
        // Every piece is held by this instance for the whole join: no PATCH or DELETE of it here meanwhile.
        var held: [String] = []
        defer { for id in held { unclaim(id) } }
        for id in ids {
            guard claim(id) else { return Self.tus(423, "another request is using partial upload /uploads/\(id)") }
            held.append(id)
        }
        let store = backend.store, key = BucketBackend.key(target), limit = maxSize, pieces = ids
        let joined: S3StoreUpload
        switch run("join the partial uploads into \(target.relative)", {
            try await store.concatenate(pieces, into: key, metadata: metadata, limit: limit).upload
        }) {
        case let .value(u): joined = u
        case let .refused(response): return response
        }
        var h = HTTPHeaders()
        h.add("Location", "/uploads/\(joined.id)")
        h.add(TusProtocol.Header.offset, String(joined.completedLength ?? 0))
        return Self.tus(201, headers: h)
    }
}

import Foundation
import SkyliftCore
import SkyliftHashing
import SkyliftHTTPServer

/// `block-checksum` over a bucket, as on a folder (see `TusUploads+Blocks`), with a block being one part of the
/// upload's multipart write (`Tus-Block-Size` is the store's part size): one PATCH may carry the whole file, each
/// part's checksum is stored as the part is, and the upload is finished only once the client confirmed every
/// block. A bad block is sent again alone, with `Upload-Checksum`, and replaces its part.
extension BucketTusUploads {
    private typealias Header = TusProtocol.Header

    /// What a block sent again came to: its checksum did not match (it stays bad), or it was stored (and the
    /// upload finished when that was the last thing missing).
    enum BlockRepair: Sendable {
        case mismatch
        case stored(S3StoreResumableState, finished: Bool)
    }

    /// The creation's `Upload-Block-Checksum`, refused when it names no algorithm this server has or the length is
    /// deferred.
    func blockChecksum(_ request: HTTPRequest, length: Int64?) -> Checked<BlockChecksumAlgorithm?> {
        guard let asked = request.headers[Header.blockChecksum] else { return .value(nil) }
        guard let algorithm = BlockChecksumAlgorithm(name: asked) else {
            return .refused(Self.tus(400, "block-checksum needs " + BlockChecksumAlgorithm.allCases.map(\.rawValue).joined(separator: " or ")))
        }
        guard length != nil else { return .refused(Self.tus(400, "block-checksum needs Upload-Length")) }
        return .value(algorithm)
    }

    func addBlockHeaders(to h: inout HTTPHeaders, _ upload: S3StoreUpload) {
        guard let algorithm = upload.blockAlgorithm else { return }
        h.set(Header.blockSize, String(upload.partSize))
        h.set(Header.blockChecksum, algorithm.rawValue)
        h.set(Header.blocksConfirmed, String(upload.confirmedBlocks ?? 0))
        if let bad = upload.badBlocks, !bad.isEmpty { h.set(Header.badBlocks, bad.map(String.init).joined(separator: ",")) }
    }

    /// A PATCH on a `block-checksum` upload: a confirmation (`Upload-Block-Digests`), a repair (an offset below the
    /// upload's, at a bad block) or more data at the offset. Called holding the upload's claim.
    func patchBlocks(_ request: HTTPRequest, id: String, state: S3StoreResumableState, claimed: Int64) -> HTTPHeadDecision {
        if let value = request.headers[Header.blockDigests] { return .respond(confirm(value, request: request, id: id, state: state)) }
        if claimed < state.offset, let decision = repair(request, id: id, state: state, claimed: claimed) { return decision }
        guard claimed == state.offset else {
            return .respond(Self.tus(409, "Upload-Offset \(claimed) does not match the upload's offset \(state.offset)"))
        }
        // Never accept a checksum without checking it: here data is checked block by block instead.
        if request.headers[Header.checksum] != nil {
            return .respond(Self.tus(400, "Upload-Checksum goes only with a block sent again; data is checked by \(Header.blockDigests)"))
        }
        return receive(request, id: id, offset: state.offset, length: state.upload.length, blocks: state.upload, wrap: { $0 })
    }

    /// Compares the client's checksums of the next blocks with the stored ones; 460 names the ones that differ.
    private func confirm(_ value: String, request: HTTPRequest, id: String, state: S3StoreResumableState) -> HTTPResponse {
        guard (request.contentLength ?? 0) == 0, request.headers["Transfer-Encoding"] == nil else {
            return Self.tus(400, "a confirmation carries no body")
        }
        let upload = state.upload
        guard let algorithm = upload.blockAlgorithm, let claimed = TusProtocol.BlockDigests(header: value, byteCount: algorithm.byteCount) else {
            return Self.tus(400, "malformed \(Header.blockDigests)")
        }
        var h = HTTPHeaders()
        addBlockHeaders(to: &h, upload)
        let confirmed = upload.confirmedBlocks ?? 0
        guard (upload.badBlocks ?? []).isEmpty else { return Self.tus(409, "bad blocks must be sent again first", headers: h) }
        guard claimed.first == confirmed else { return Self.tus(409, "confirm from block \(confirmed)", headers: h) }
        let end = confirmed + claimed.digests.count
        let store = backend.store
        guard end <= store.receivedBlocks(state) else { return Self.tus(409, "blocks up to \(end) not received yet", headers: h) }
        let stored: [[UInt8]?]
        switch run("read the block checksums of", { try await store.blockDigests(state, confirmed ..< end) }) {
        case let .value(found): stored = found
        case let .refused(response): return response
        }
        let bad = (confirmed ..< end).filter { stored[$0 - confirmed] != claimed.digests[$0 - confirmed] }
        if case let .refused(response) = run("record the confirmation of", { try await store.recordConfirmation(upload, confirmed: end, bad: bad) }) {
            return response
        }
        var after = state
        after.upload.confirmedBlocks = end
        after.upload.badBlocks = bad
        guard bad.isEmpty else {
            var h = HTTPHeaders()
            h.add(Header.offset, String(state.offset))
            addBlockHeaders(to: &h, after.upload)
            return Self.tus(TusProtocol.checksumMismatchStatus, "checksum mismatch in \(bad.count) block(s)", headers: h)
        }
        if Self.isConfirmedWhole(after) {
            if case let .refused(response) = run("store", { try await store.finishResumable(id) }) { return response }
            return Self.tus(204, headers: [Header.offset: String(state.offset)])
        }
        return Self.tus(204, headers: unfinishedHeaders(after))
    }

    /// Starts receiving a bad block again; nil when `claimed` is not the start of one (an ordinary offset conflict).
    private func repair(_ request: HTTPRequest, id: String, state: S3StoreResumableState, claimed: Int64) -> HTTPHeadDecision? {
        let upload = state.upload
        guard let algorithm = upload.blockAlgorithm, let length = upload.length else { return nil }
        let resent: TusUploads.ResentBlock
        switch TusUploads.resentBlock(request, claimed: claimed, length: length, blockSize: Int64(upload.partSize), bad: upload.badBlocks,
                                      algorithm: algorithm) {
        case nil: return nil
        case let .refused(response)?: return .respond(response)
        case let .value(block)?: resent = block
        }
        let index = resent.index, range = resent.range
        let store = backend.store
        let intake = BucketIntake<BlockRepair>(executor: backend.executor, maxSize: range.length, job: { [self] body in
            defer { unclaim(id) }
            let bytes = try await Self.collect(body, limit: range.length)
            var check = BlockChecksum(algorithm)
            bytes.withUnsafeBytes { check.update($0) }
            guard check.finalizeAndReset() == resent.expected else { return .mismatch }
            let after = try await store.replaceBlock(id, index: index, with: bytes)
            guard Self.isConfirmedWhole(after) else { return .stored(after, finished: false) }
            try await store.finishResumable(id)
            return .stored(after, finished: true)
        }, respond: { [self] outcome in
            switch outcome {
            case .success(.mismatch):
                return Self.tus(TusProtocol.checksumMismatchStatus, "checksum mismatch: block \(index) stays bad")
            case let .success(.stored(after, finished)):
                return Self.tus(204, headers: finished ? [Header.offset: String(after.offset)] : unfinishedHeaders(after))
            case let .failure(error):
                return Self.refusal(error, operation: "store")
            }
        })
        return .receive(intake)
    }

    /// Every byte in, every block confirmed, none bad: the upload can be finished.
    static func isConfirmedWhole(_ state: S3StoreResumableState) -> Bool {
        let upload = state.upload
        guard let length = upload.length, state.offset == length, (upload.badBlocks ?? []).isEmpty else { return false }
        return (upload.confirmedBlocks ?? 0) >= TusProtocol.blockCount(length: length, blockSize: Int64(upload.partSize))
    }

    /// The offset, block headers and expiry of an upload still open.
    private func unfinishedHeaders(_ state: S3StoreResumableState) -> HTTPHeaders {
        var h = HTTPHeaders()
        h.add(Header.offset, String(state.offset))
        addBlockHeaders(to: &h, state.upload)
        addExpires(to: &h, from: Date())
        return h
    }

    /// The bytes of a body known to hold at most `limit` of them (more is refused: ``BucketIntake`` already caps it).
    static func collect(_ body: BodyChannel.Chunks, limit: Int64) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(limit))
        for try await chunk in body {
            guard Int64(bytes.count + chunk.count) <= limit else { throw BucketIntake<Int64>.Abandoned() }
            bytes += chunk
        }
        return bytes
    }
}

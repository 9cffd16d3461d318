import Foundation
import SkyliftHTTPClient
import SkyliftCore

/// `block-checksum` at the end of an upload: the server holds every byte; the client confirms each block's
/// checksum and sends again only the blocks the server names bad.
extension TusWrite {
    /// Sends the checksums of every block the server has not had confirmed, ``TusProtocol/BlockDigests/maxCount``
    /// per request; the last confirmation makes the server move the file into place.
    ///
    /// One round: blocks named bad by an earlier round (the server's HEAD lists them) go again first, each
    /// alone with its own `Upload-Checksum`; then the confirmations. A confirmation that finds bad blocks ends
    /// the round with ``RemoteError/checksumMismatch(url:)``: the engine's ``RetryPolicy`` decides whether there
    /// is another round (it calls ``finish()`` again), so rounds of repairs count against the same bound as any
    /// other retry.
    func confirmBlocks(_ ledger: TusBlockLedger) async throws {
        let state = try await head()
        guard state.offset == length else { throw RemoteError.offsetConflict(url: uploadURL) }
        for index in state.badBlocks {
            guard (0 ..< ledger.blockCount).contains(index) else {
                throw RemoteError.protocolViolation(url: uploadURL, reason: "HEAD names bad block \(index) of \(ledger.blockCount)")
            }
            try await resend(index, ledger)
        }
        var next = state.confirmedBlocks
        while next < ledger.blockCount {
            let end = min(next + TusProtocol.BlockDigests.maxCount, ledger.blockCount)
            let digests = try (next ..< end).map { try ledger.digest($0) }
            let headers = TusProtocol.confirmHeaders(offset: length, digests: .init(first: next, digests: digests))
            let r = try await remote.http.send("PATCH", uploadURL, headers: headers)
            if r.status != 409 { _ = try? await r.collect(upTo: 4096) }
            switch r.status {
            case 200, 204:
                next = end
            case TusProtocol.checksumMismatchStatus:
                guard let named = r.headers[TusProtocol.Header.badBlocks].flatMap(TusProtocol.parseBadBlocks), !named.isEmpty,
                      named.allSatisfy({ (next ..< end).contains($0) }) else {
                    throw RemoteError.protocolViolation(url: uploadURL, reason: "460 without the bad blocks of \(next)..<\(end)")
                }
                throw RemoteError.checksumMismatch(url: uploadURL)
            default:
                _ = try await patched(r, from: length, length: 0)
                throw RemoteError.offsetConflict(url: uploadURL)
            }
        }
    }

    /// Sends block `index` again at its own offset, checksummed afresh from the source.
    private func resend(_ index: Int, _ ledger: TusBlockLedger) async throws {
        let range = ledger.range(of: index)
        let digest = try ledger.hash(index)
        ledger.record(index, digest)
        let checksum = (ledger.checksum.rawValue, digest)
        let headers = TusProtocol.patchHeaders(offset: range.offset, length: range.length, checksum: checksum)
        let r = try await remote.http.send("PATCH", uploadURL, headers: headers,
                                           body: .stream(length: range.length, open: { try ledger.open(index) }))
        guard r.status == 200 || r.status == 204 else {
            _ = try await patched(r, from: range.offset, length: range.length)
            throw RemoteError.offsetConflict(url: uploadURL)
        }
        _ = try? await r.collect(upTo: 4096)
    }
}

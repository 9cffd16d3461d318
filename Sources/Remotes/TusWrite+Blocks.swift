import Foundation
import HTTPClient
import SkyliftCore

/// `block-checksum` at the end of an upload: the server holds every byte; the client confirms each block's
/// SHA-256 and sends again only the blocks the server names bad.
extension TusWrite {
    /// Rounds of re-sent blocks before the mismatch is reported (the engine may then retry the whole finish).
    static let repairRounds = 3

    /// Sends the digests of every block the server has not had confirmed, ``TusProtocol/BlockDigests/maxCount``
    /// per request; bad blocks go again alone, each with its own `Upload-Checksum`. The last confirmation (or
    /// repair) makes the server move the file into place.
    func confirmBlocks(_ ledger: TusBlockLedger) async throws {
        let state = try await head()
        guard state.offset == length else { throw RemoteError.offsetConflict(url: uploadURL) }
        var next = state.confirmedBlocks
        var bad = state.badBlocks
        var rounds = 0
        while true {
            if !bad.isEmpty {
                rounds += 1
                guard rounds <= Self.repairRounds else { throw RemoteError.checksumMismatch(url: uploadURL) }
                for index in bad { try await resend(index, ledger) }
                bad = []
            }
            guard next < ledger.blockCount else { return }
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
                bad = named
                next = end
            default:
                _ = try await patched(r, from: length, length: 0)
                throw RemoteError.offsetConflict(url: uploadURL)
            }
        }
    }

    /// Sends block `index` again at its own offset, digested afresh from the source.
    private func resend(_ index: Int, _ ledger: TusBlockLedger) async throws {
        let range = ledger.range(of: index)
        let digest = try ledger.hash(index)
        ledger.record(index, digest)
        let headers = TusProtocol.patchHeaders(offset: range.offset, length: range.length, checksum: ("sha256", digest))
        let r = try await remote.http.send("PATCH", uploadURL, headers: headers,
                                           body: .stream(length: range.length, open: { try ledger.open(index) }))
        guard r.status == 200 || r.status == 204 else {
            _ = try await patched(r, from: range.offset, length: range.length)
            throw RemoteError.offsetConflict(url: uploadURL)
        }
        _ = try? await r.collect(upTo: 4096)
    }
}

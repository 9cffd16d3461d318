import Foundation
import SkyliftHTTPClient
import SkyliftCore

/// One tus upload resource.
///
/// With `block-checksum` (``ledger`` set) the rest of the file goes in one PATCH, checksummed block by block on
/// the way out (CRC-32C where the server takes it); ``finish()`` then sends those checksums, and the server moves
/// the file into place only if every block matches. A block that does not is sent again alone. Without it, parts
/// carry `Upload-Checksum` when the server checks them.
struct TusWrite: RemoteWrite {
    let remote: TusRemote
    let uploadURL: URL
    let length: Int64
    let ledger: TusBlockLedger?

    /// How a `block-checksum` upload is cut and checked.
    struct Blocks: Equatable {
        var size: Int64
        var checksum: BlockChecksumAlgorithm
    }

    init(remote: TusRemote, uploadURL: URL, length: Int64, blocks: Blocks?) {
        self.remote = remote
        self.uploadURL = uploadURL
        self.length = length
        ledger = blocks.map { TusBlockLedger(blockSize: $0.size, checksum: $0.checksum, length: length) }
    }

    var token: String { uploadURL.absoluteString }
    var isResumable: Bool { true }
    var maxPartLength: Int64? { ledger == nil ? remote.partLength : nil }
    var partChecksum: PartChecksumAlgorithm? { ledger == nil ? remote.options.partChecksum : nil }
    var sendsToEnd: Bool { ledger != nil }

    func attach(reader: @escaping @Sendable (ByteRange) throws -> InputStream) { ledger?.attach(reader) }

    /// What a HEAD tells about the upload.
    struct Head {
        var offset: Int64
        var length: Int64?
        var blocks: Blocks?
        var confirmedBlocks: Int
        var badBlocks: [Int]
    }

    func head() async throws -> Head {
        let r = try await remote.http.send("HEAD", uploadURL, headers: TusProtocol.baseHeaders())
        switch r.status {
        case 200, 204:
            guard let offset = TusProtocol.offset(r.headers) else {
                throw RemoteError.protocolViolation(url: uploadURL, reason: "HEAD answered without Upload-Offset")
            }
            let bad = r.headers[TusProtocol.Header.badBlocks].map { TusProtocol.parseBadBlocks($0) }
            guard let badBlocks = bad ?? [] else {
                throw RemoteError.protocolViolation(url: uploadURL, reason: "HEAD answered a malformed Upload-Bad-Blocks")
            }
            let confirmed = r.headers.integer(TusProtocol.Header.blocksConfirmed).map { Int(clamping: $0) } ?? 0
            return Head(offset: offset, length: TusProtocol.length(r.headers), blocks: TusRemote.blocks(r.headers),
                        confirmedBlocks: confirmed, badBlocks: badBlocks)
        case 403, 404, 410: throw RemoteError.uploadGone(url: uploadURL)
        default: throw RemoteError.status(r.status, method: "HEAD", url: uploadURL, detail: nil)
        }
    }

    func confirmedOffset() async throws -> Int64 { try await head().offset }

    func send(_ part: WritePart) async throws -> Int64 {
        let checksum = partChecksum.flatMap { alg in part.checksum.map { (alg.rawValue, $0) } }
        let headers = TusProtocol.patchHeaders(offset: part.offset, length: part.length, checksum: checksum)
        let open: @Sendable () throws -> InputStream
        if let ledger {
            open = { TusBlockStream(base: try part.open(), offset: part.offset, ledger: ledger) }
        } else {
            open = part.open
        }
        let r = try await remote.http.send("PATCH", uploadURL, headers: headers, body: .stream(length: part.length, open: open))
        return try await patched(r, from: part.offset, length: part.length)
    }

    /// The offset a PATCH answer reports, or the error its status means.
    func patched(_ r: HTTPClientResponse, from offset: Int64, length: Int64) async throws -> Int64 {
        let detail = RemoteHTTP.detail((try? await r.collect(upTo: 4096)) ?? [])
        switch r.status {
        case 200, 204:
            // An answer without a plausible offset leaves us unsure what was stored: ask with HEAD.
            guard let next = TusProtocol.offset(r.headers), next > offset || length == 0 && next == offset,
                  next <= offset + length else {
                throw RemoteError.offsetConflict(url: uploadURL)
            }
            return next
        case 409: throw RemoteError.offsetConflict(url: uploadURL)
        case TusProtocol.checksumMismatchStatus: throw RemoteError.checksumMismatch(url: uploadURL)
        case 404, 410: throw RemoteError.uploadGone(url: uploadURL)
        default: throw RemoteError.status(r.status, method: "PATCH", url: uploadURL, detail: detail)
        }
    }

    /// Plain tus: nothing to do, the upload completes when the last PATCH brings the offset to the length
    /// (servers may then forget the upload resource, so a HEAD here could only mislead). `block-checksum`:
    /// confirms every block, sending bad ones again (see `TusWrite+Blocks`).
    func finish() async throws {
        guard let ledger else { return }
        try await confirmBlocks(ledger)
    }

    func abort() async throws {
        guard remote.options.supportsTermination else { return }
        try await remote.http.expect([200, 204, 404, 410], "DELETE", uploadURL, headers: TusProtocol.baseHeaders())
    }
}

import Foundation
import SkyliftHTTPServer
import SkyliftCore
import SkyliftSystem

/// `block-checksum` (see `TusProtocol.BlockDigests`): one PATCH may carry a whole file, the server keeps what
/// arrived block by block, and the upload is moved into place only once the client confirmed every block's
/// checksum (CRC-32C or SHA-256, chosen at creation). A block that does not match is sent again alone, at its
/// own offset, with `Upload-Checksum`. The whole file's digest record is computed as the bytes arrive.
extension TusUploads {
    typealias Header = TusProtocol.Header

    /// Blocks a crash can lose at most one of; small enough that a kill re-sends little, large enough that
    /// its fdatasync and digest record cost nothing next to the data.
    static let blockSize: Int64 = 4 << 20

    func addBlockHeaders(to h: inout HTTPHeaders, _ info: TusUpload.Info) {
        guard let blockSize = info.blockSize else { return }
        h.add(Header.blockSize, String(blockSize))
        h.add(Header.blockChecksum, info.blockAlgorithm.rawValue)
        h.add(Header.blocksConfirmed, String(info.confirmedBlocks ?? 0))
        if let bad = info.badBlocks, !bad.isEmpty { h.add(Header.badBlocks, bad.map(String.init).joined(separator: ",")) }
    }

    /// A PATCH on a `block-checksum` upload: a confirmation (`Upload-Block-Digests`), a repair (an offset below
    /// the upload's, at a bad block) or more data at the offset. Called holding the upload's claim.
    func patchBlocks(_ request: HTTPRequest, upload: TusUpload, info: TusUpload.Info, offset: Int64, claimed: Int64) -> HTTPHeadDecision {
        if let value = request.headers[Header.blockDigests] {
            return .respond(confirm(value, request: request, upload: upload, info: info, offset: offset))
        }
        if claimed < offset, let decision = repair(request, upload: upload, info: info, claimed: claimed) { return decision }
        guard claimed == offset else {
            return .respond(Self.tusResponse(409, "Upload-Offset \(claimed) does not match the upload's offset \(offset)"))
        }
        // Never accept a checksum without checking it: here data is checked block by block instead.
        if request.headers[Header.checksum] != nil {
            return .respond(Self.tusResponse(400, "Upload-Checksum goes only with a block sent again; data is checked by \(Header.blockDigests)"))
        }
        return receiveBlocks(request, upload: upload, info: info, offset: offset, wrap: { $0 })
    }

    /// Starts a body into a `block-checksum` upload at `offset`; `wrap` adapts the answer (PATCH vs POST).
    func receiveBlocks(_ request: HTTPRequest, upload: TusUpload, info: TusUpload.Info, offset: Int64,
                       wrap: @escaping (HTTPResponse) -> HTTPResponse) -> HTTPHeadDecision {
        guard let blockSize = info.blockSize, let length = info.length else { return .respond(Self.tusResponse(500, "upload has no block size")) }
        if let bodyLength = request.contentLength, bodyLength > length - offset {
            return .respond(Self.tusResponse(413, "body runs past the upload's length \(length)"))
        }
        do {
            // The whole file's digest continues from the last body when that ended where this one starts. A partial
            // upload (`concatenation`) has none: its final upload hashes the joined bytes as it copies them.
            let running = streamed.take(upload.id, covering: offset) ?? (offset == 0 && info.partial != true ? store.digests.recorder() : nil)
            let receiver = try TusBlockReceiver(
                upload: upload, info: info, offset: offset, length: length, blockSize: blockSize,
                running: running, streamed: streamed,
                done: { [self] response in
                    var r = response
                    r.headers.set(Header.resumable, Self.version)
                    addBlockHeaders(to: &r.headers, info)
                    addExpires(to: &r.headers, upload)
                    return wrap(r)
                },
                release: { [self] in unclaim(upload.id) })
            return .receive(receiver)
        } catch {
            return .respond(Self.tusResponse(500, "cannot open upload data"))
        }
    }

    /// Compares the client's digests of the next blocks with the recorded ones; 460 names the ones that differ.
    private func confirm(_ value: String, request: HTTPRequest, upload: TusUpload, info: TusUpload.Info, offset: Int64) -> HTTPResponse {
        guard (request.contentLength ?? 0) == 0, request.headers["Transfer-Encoding"] == nil else {
            return Self.tusResponse(400, "a confirmation carries no body")
        }
        guard let claimed = TusProtocol.BlockDigests(header: value, byteCount: info.blockAlgorithm.byteCount) else { return Self.tusResponse(400, "malformed \(Header.blockDigests)") }
        var info = info, h = HTTPHeaders()
        addBlockHeaders(to: &h, info)
        let confirmed = info.confirmedBlocks ?? 0
        guard (info.badBlocks ?? []).isEmpty else { return Self.tusResponse(409, "bad blocks must be sent again first", headers: h) }
        guard claimed.first == confirmed else { return Self.tusResponse(409, "confirm from block \(confirmed)", headers: h) }
        let end = confirmed + claimed.digests.count
        let received = Int(min(Int64(upload.recordedBlocks(info)), Int64(TusProtocol.blockCount(length: offset, blockSize: info.blockSize ?? 1))))
        guard end <= received else { return Self.tusResponse(409, "blocks up to \(end) not received yet", headers: h) }
        guard let stored = upload.blockFile(info).digests(confirmed ..< end) else {
            return Self.tusResponse(500, "cannot read block digests")
        }
        let bad = (confirmed ..< end).filter { stored[$0 - confirmed] != claimed.digests[$0 - confirmed] }
        info.confirmedBlocks = end
        info.badBlocks = bad
        do { try upload.save(info) } catch { return Self.tusResponse(500, "cannot record confirmation") }
        guard bad.isEmpty else {
            var h = HTTPHeaders()
            h.add(Header.offset, String(offset))
            addBlockHeaders(to: &h, info)
            return Self.tusResponse(TusProtocol.checksumMismatchStatus, "checksum mismatch in \(bad.count) block(s)", headers: h)
        }
        return finishIfConfirmed(upload, info: info, offset: offset)
    }

    /// A bad block sent again, as its PATCH names it: which block, its bytes' range and the checksum they must have.
    struct ResentBlock {
        let index: Int
        let range: ByteRange
        let expected: [UInt8]
    }

    /// Reads a PATCH at `claimed` as a bad block sent again (either store): nil when `claimed` is not the start of a
    /// bad block (an ordinary offset conflict), the refusal when the request lacks the block's `Upload-Checksum` or
    /// does not carry the whole block.
    static func resentBlock(_ request: HTTPRequest, claimed: Int64, length: Int64, blockSize: Int64, bad: [Int]?,
                            algorithm: BlockChecksumAlgorithm) -> Checked<ResentBlock>? {
        guard blockSize > 0, claimed % blockSize == 0, let index = Int(exactly: claimed / blockSize), bad?.contains(index) == true else { return nil }
        guard let header = request.headers[Header.checksum], case let .success(sum) = TusProtocol.parseChecksum(header),
              sum.algorithm == algorithm.rawValue else {
            return .refused(Self.tusResponse(400, "a block sent again needs Upload-Checksum: \(algorithm.rawValue)"))
        }
        let range = TusProtocol.blockRange(index, length: length, blockSize: blockSize)
        guard request.contentLength == range.length else {
            return .refused(Self.tusResponse(400, "block \(index) is sent again whole: Content-Length \(range.length)"))
        }
        return .value(ResentBlock(index: index, range: range, expected: sum.digest))
    }

    /// Starts rewriting a bad block; nil when `claimed` is not the start of one (an ordinary offset conflict).
    private func repair(_ request: HTTPRequest, upload: TusUpload, info: TusUpload.Info, claimed: Int64) -> HTTPHeadDecision? {
        guard let blockSize = info.blockSize, let length = info.length else { return nil }
        let resent: ResentBlock
        switch Self.resentBlock(request, claimed: claimed, length: length, blockSize: blockSize, bad: info.badBlocks, algorithm: info.blockAlgorithm) {
        case nil: return nil
        case let .refused(response)?: return .respond(response)
        case let .value(block)?: resent = block
        }
        let index = resent.index, range = resent.range
        // The block's bytes change under the whole file's running digest: completion reads the file instead.
        streamed.drop(upload.id)
        do {
            let receiver = try TusRepairReceiver(
                upload: upload, info: info, index: index, range: range, expected: resent.expected,
                done: { [self] good in
                    guard good else { return Self.tusResponse(TusProtocol.checksumMismatchStatus, "checksum mismatch: block \(index) stays bad") }
                    guard var now = upload.loadInfo(), let offset = upload.offset(now) else { return Self.tusResponse(404, "no such upload") }
                    now.badBlocks?.removeAll { $0 == index }
                    do { try upload.save(now) } catch { return Self.tusResponse(500, "cannot record repair") }
                    return finishIfConfirmed(upload, info: now, offset: offset)
                },
                release: { [self] in unclaim(upload.id) })
            return .receive(receiver)
        } catch {
            return .respond(Self.tusResponse(500, "cannot open upload data"))
        }
    }

    /// 204 with the offset; once every byte is in and every block confirmed good, the file is moved into place.
    private func finishIfConfirmed(_ upload: TusUpload, info: TusUpload.Info, offset: Int64) -> HTTPResponse {
        var h = HTTPHeaders()
        h.add(Header.offset, String(offset))
        let count = TusProtocol.blockCount(length: info.length ?? 0, blockSize: info.blockSize ?? 1)
        if offset == info.length, (info.confirmedBlocks ?? 0) >= count, (info.badBlocks ?? []).isEmpty {
            if let failure = complete(upload, info: info) { return failure }
            return Self.tusResponse(204, headers: h)
        }
        addBlockHeaders(to: &h, info)
        addExpires(to: &h, upload)
        return Self.tusResponse(204, headers: h)
    }

    /// Records a finished upload's digests on its data file: from the digest that ran while its bytes arrived
    /// when there is one covering all `length` of them, else by reading the file once.
    func recordDigests(_ upload: TusUpload, length: Int64?) {
        if let length, let running = streamed.take(upload.id, covering: length),
           let fd = try? FileDescriptor.open(upload.dataPath, .readOnly, options: .noFollow) {
            defer { fd.close() }
            if (try? fd.status(path: upload.dataPath))?.size == length, store.digests.save(running, fd: fd, path: upload.dataPath) != nil {
                try? fd.sync(path: upload.dataPath)
                return
            }
        }
        store.digests.hashAndSave(path: upload.dataPath)
    }
}

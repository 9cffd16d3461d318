import Foundation
@testable import SkyliftRemotes
import SkyliftCore
@testable import SkyliftStorageServer

/// The tus wire format (`SkyliftCore.TusProtocol`, shared by TusUploads and TusRemote): Upload-Metadata,
/// Upload-Checksum, Upload-Block-Digests, Upload-Bad-Blocks, Upload-Block-Checksum, Tus-Block-Checksum-Algorithm,
/// Upload-Offset, Upload-Length, Content-Length, Upload-Concat (and the upload ids a server reads from its URLs)
/// and a server's announcement. Properties: numbers are non-negative
/// and spelled as sent; checksums have the digest's size; block digests have the algorithm's size (4 or 32
/// bytes), at most 64, and survive a round trip; a block checksum name or list reads as a known algorithm or
/// nothing; a final concatenation names 1 to 10000 URLs without spaces and survives a round trip, and an upload id
/// read from one is 32 hex digits; the length checks a PATCH goes through cannot overflow.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTusHeaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let f = FuzzInput(data, size).fields(6)
    if let pairs = TusProtocol.parseMetadata(f[0]) {
        for key in pairs.keys { require(!key.isEmpty && !key.contains(",") && !key.contains(" "), "metadata key \(key)") }
    }
    if case let .value(checksum?) = TusUploads.parseChecksum(f[1]) {
        require(checksum.expected.count == checksum.algorithm.byteCount, "checksum of the wrong size")
    }
    for algorithm in BlockChecksumAlgorithm.allCases {
        guard let blocks = TusProtocol.BlockDigests(header: f[5], byteCount: algorithm.byteCount) else { continue }
        require(blocks.first >= 0 && blocks.digests.count <= TusProtocol.BlockDigests.maxCount, "block digests out of bounds")
        require(blocks.digests.allSatisfy { $0.count == algorithm.byteCount }, "block digest of the wrong size")
        require(TusProtocol.BlockDigests(header: blocks.headerValue, byteCount: algorithm.byteCount) == blocks,
                "block digests do not round-trip")
    }
    if let named = BlockChecksumAlgorithm(name: f[1]) { require(named.rawValue == f[1].trimmingSpaces().lowercased(), "block checksum name") }
    if let preferred = TusProtocol.preferredBlockChecksum(f[1]) {
        require(TusProtocol.list(f[1]).contains { $0.lowercased() == preferred.rawValue }, "preferred block checksum not offered")
    }
    if case let .success(.final(urls)) = TusProtocol.Concat.parse(f[0]) {
        require(!urls.isEmpty && urls.count <= TusProtocol.Concat.maxParts, "final list of \(urls.count)")
        require(urls.allSatisfy { !$0.isEmpty && !$0.utf8.contains(0x20) }, "final list item with a space")
        require(TusProtocol.Concat.parse(TusProtocol.Concat.final(urls).headerValue) == .success(.final(urls)), "final list does not round-trip")
        for url in urls.prefix(64) {
            guard let id = TusUploads.uploadID(inURL: url) else { continue }
            require(TusUpload.isValidID(Substring(id)), "upload id \(id) read from \(url)")
        }
    }
    if let id = TusUploads.uploadID(inURL: f[4]) { require(TusUpload.isValidID(Substring(id)), "upload id \(id)") }
    if let bad = TusProtocol.parseBadBlocks(f[5]) { require(bad.allSatisfy { $0 >= 0 }, "negative bad block") }
    if let offset = Int64(digits: f[2]), let blockSize = Int64(digits: f[3]), blockSize > 0 {
        let count = TusProtocol.blockCount(length: offset, blockSize: blockSize)
        if count > 0 { require(TusProtocol.blockRange(count - 1, length: offset, blockSize: blockSize).end == offset, "last block does not end the upload") }
    }
    let headers = HTTPHeaders([("Upload-Offset", f[2]), ("Upload-Length", f[3]), ("Content-Length", f[4]),
                               ("Tus-Max-Size", f[3]), ("Tus-Version", "1.0.0"), ("Tus-Extension", "block-checksum"),
                               ("Tus-Block-Size", f[3]), ("Tus-Block-Checksum-Algorithm", f[1]), ("Upload-Block-Size", f[3]),
                               ("Upload-Block-Checksum", f[1])])
    for name in ["Upload-Offset", "Upload-Length", "Content-Length"] {
        guard let v = headers.integer(name) else { continue }
        require(v >= 0, "\(name) negative")
        let digits = headers[name]!.trimmingSpaces().drop { $0 == "0" }
        require(String(v) == (digits.isEmpty ? "0" : String(digits)), "\(name) \(v) is not what was sent")
    }
    require(TusProtocol.offset(headers) == headers.integer("Upload-Offset"), "client and server read Upload-Offset apart")
    require(TusProtocol.length(headers) == headers.integer("Upload-Length"), "client and server read Upload-Length apart")
    if let options = TusOptions(headers: headers), options.blockSize != nil {
        require(TusProtocol.preferredBlockChecksum(f[1]) == options.blockChecksum, "announced block checksum read apart")
    }
    if let blocks = TusRemote.blocks(headers) {
        require(blocks.size >= 64 << 10 && blocks.size <= 256 << 20, "block size out of bounds")
    }
    // The checks TusUploads.receive and TusPatchReceiver.receive make, with these numbers.
    if let offset = headers.integer("Upload-Offset"), let limit = headers.integer("Upload-Length"),
       let body = headers.integer("Content-Length"), offset <= limit {
        _ = body > limit - offset
    }
    return 0
}

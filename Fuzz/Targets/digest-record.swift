import Foundation
@testable import SkyliftStorageServer

/// The digest record read from a stored file's extended attribute (anyone who can write the tree can write
/// one): parsing never traps; what parses has digests of the right lengths and encodes back to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDigestRecord(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    guard let record = DigestRecord(encoded: input.bytes) else { return 0 }
    require(record.sha256.count == 32, "sha256 of \(record.sha256.count) bytes")
    require(record.sha1.map { $0.count == 20 } ?? true, "sha1 of the wrong length")
    require(record.md5.map { $0.count == 16 } ?? true, "md5 of the wrong length")
    require(record.size >= 0, "negative size \(record.size)")
    require(DigestRecord(encoded: record.encoded) == record, "does not survive encoding")
    require(record.encoded.count <= DigestRecord.maxEncodedBytes, "encodes past the limit")
    return 0
}

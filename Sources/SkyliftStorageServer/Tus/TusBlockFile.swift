import Foundation
import SkyliftSystem

/// `<id>.blocks` of a `block-checksum` upload: the checksum of block `i` at bytes `size i ..< size (i + 1)`
/// (`size` is 4 for CRC-32C, 32 for SHA-256). A checksum is written only after its block's data was made
/// durable, so every recorded one covers bytes that survive a crash.
struct TusBlockFile {
    let path: String
    let digestSize: Int

    /// Records (or replaces) the digest of block `index`, durably.
    func record(_ index: Int, _ digest: [UInt8]) throws {
        let fd = try FileDescriptor.open(path, .writeOnly, options: [.create], permissions: 0o600)
        defer { fd.close() }
        try digest.withUnsafeBytes { try fd.writeAll($0, at: Int64(index) * Int64(digestSize), path: path) }
        try fd.syncData(path: path)
    }

    /// Keeps the digests of blocks `0 ..< count` only.
    func keep(_ count: Int) throws {
        let fd = try FileDescriptor.open(path, .writeOnly, options: [.create], permissions: 0o600)
        defer { fd.close() }
        try fd.setLength(Int64(count) * Int64(digestSize), path: path)
        try fd.syncData(path: path)
    }

    /// The recorded digests of blocks `range`; nil when one is missing.
    func digests(_ range: Range<Int>) -> [[UInt8]]? {
        guard !range.isEmpty else { return [] }
        guard let fd = try? FileDescriptor.open(path, .readOnly) else { return nil }
        defer { fd.close() }
        var bytes = [UInt8](repeating: 0, count: range.count * digestSize)
        let n = bytes.withUnsafeMutableBytes { (try? fd.read(into: $0, at: Int64(range.lowerBound) * Int64(digestSize), path: path)) ?? -1 }
        guard n == bytes.count else { return nil }
        return stride(from: 0, to: bytes.count, by: digestSize).map { Array(bytes[$0 ..< $0 + digestSize]) }
    }
}

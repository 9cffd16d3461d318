import Foundation
import SkyliftHashing

/// What the cache persists about one resource: its representation and which blocks are present.
///
/// On disk (`<name>.map`): magic `SKRM`, format version, metadata as JSON, then one
/// `(block index, checksum)` pair per present block, then the first 8 bytes of SHA-256 over everything
/// before it, so a torn or damaged map is recognized and the resource rebuilt rather than trusted.
struct ResourceMap: Sendable, Equatable {
    struct Metadata: Codable, Sendable, Equatable {
        var key: String
        var length: Int64
        var contentType: String?
        var etag: String?
        var lastModified: Double?
        var blockSize: Int
        /// Seconds since 1970 of the last read or write, for LRU eviction across restarts.
        var lastAccess: Double
    }

    static let version: UInt32 = 1
    private static let magic: [UInt8] = Array("SKRM".utf8)

    var metadata: Metadata
    /// Present blocks and their checksums.
    var blocks: [Int: UInt64]

    func encoded() throws -> [UInt8] {
        var out = Self.magic
        out.appendLittleEndian(Self.version)
        let json = try JSONEncoder().encode(metadata)
        out.appendLittleEndian(UInt32(json.count))
        out.append(contentsOf: json)
        out.appendLittleEndian(UInt32(blocks.count))
        for (index, sum) in blocks.sorted(by: { $0.key < $1.key }) {
            out.appendLittleEndian(UInt32(index))
            out.appendLittleEndian(sum)
        }
        out.appendLittleEndian(Self.trailer(out))
        return out
    }

    /// Decodes a map; nil for anything damaged, truncated or of another format version.
    init?(decoding bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard bytes.count >= 12, Array(bytes.prefix(4)) == Self.magic else { return nil }
        let body = Array(bytes.dropLast(8))
        guard reader.skip(4), let version: UInt32 = reader.next(), version == Self.version,
              let jsonCount: UInt32 = reader.next(), let json = reader.take(Int(jsonCount)),
              let metadata = try? JSONDecoder().decode(Metadata.self, from: Data(json)),
              let count: UInt32 = reader.next() else { return nil }
        var blocks: [Int: UInt64] = [:]
        for _ in 0..<count {
            guard let index: UInt32 = reader.next(), let sum: UInt64 = reader.next() else { return nil }
            blocks[Int(index)] = sum
        }
        guard let trailer: UInt64 = reader.next(), reader.atEnd, trailer == Self.trailer(body) else { return nil }
        self.metadata = metadata
        self.blocks = blocks
    }

    init(metadata: Metadata, blocks: [Int: UInt64]) {
        self.metadata = metadata
        self.blocks = blocks
    }

    private static func trailer(_ bytes: [UInt8]) -> UInt64 { CacheBlockDigest.fold(Digest.hash(.sha256, bytes)) }
}

private struct ByteReader {
    let bytes: [UInt8]
    var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position == bytes.count }

    mutating func skip(_ n: Int) -> Bool { take(n) != nil }

    mutating func take(_ n: Int) -> ArraySlice<UInt8>? {
        guard n >= 0, bytes.count - position >= n else { return nil }
        defer { position += n }
        return bytes[position ..< position + n]
    }

    mutating func next<T: FixedWidthInteger>() -> T? {
        guard let slice = take(MemoryLayout<T>.size) else { return nil }
        return slice.reversed().reduce(T(0)) { $0 << 8 | T($1) }
    }
}

extension Array where Element == UInt8 {
    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var v = value.littleEndian
        Swift.withUnsafeBytes(of: &v) { append(contentsOf: $0) }
    }
}

import Foundation

extension TusProtocol {
    /// `block-checksum`: the server cuts an upload into blocks of ``TusProtocol/Header/blockSize`` bytes at fixed
    /// offsets, makes each one durable with its checksum as it arrives, and finishes the upload only once the
    /// client has sent its own checksum of every block (`Upload-Block-Digests` on an empty PATCH) and they all
    /// match. A block that does not is named in `Upload-Bad-Blocks` and sent again alone, at its own offset, with
    /// `Upload-Checksum`. The checksum is chosen at creation (`Upload-Block-Checksum`, see
    /// ``BlockChecksumAlgorithm``) among those the server lists in `Tus-Block-Checksum-Algorithm`.
    public struct BlockDigests: Equatable, Sendable {
        /// Most checksums one header carries (~3 KiB of SHA-256), so headers stay well inside every server's limits.
        public static let maxCount = 64
        /// Index of the first block described.
        public var first: Int
        /// Checksums of blocks `first`, `first + 1`, … (all of the upload's algorithm's size).
        public var digests: [[UInt8]]

        public init(first: Int, digests: [[UInt8]]) {
            self.first = first
            self.digests = digests
        }

        /// `<first> <base64>,<base64>,…`
        public var headerValue: String {
            "\(first) " + digests.map { Data($0).base64EncodedString() }.joined(separator: ",")
        }

        /// Reads a header value: nil unless the index is a plain number and every checksum has `byteCount` bytes,
        /// at most ``maxCount`` of them.
        public init?(header: String, byteCount: Int) {
            let parts = header.trimmingSpaces().split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2, let first = Int64(digits: String(parts[0])), first <= Int64(Int32.max) else { return nil }
            let items = parts[1].split(separator: ",", omittingEmptySubsequences: false)
            guard items.count <= Self.maxCount else { return nil }
            var digests: [[UInt8]] = []
            for item in items {
                guard let d = Data(base64Encoded: String(item).trimmingSpaces()), d.count == byteCount else { return nil }
                digests.append(Array(d))
            }
            self.init(first: Int(first), digests: digests)
        }
    }

    /// The block checksum a client picks from a server's `Tus-Block-Checksum-Algorithm` list: the first of
    /// `BlockChecksumAlgorithm.allCases` offered. A server that offers `block-checksum` without the list
    /// predates it and takes SHA-256 only.
    public static func preferredBlockChecksum(_ offered: String?) -> BlockChecksumAlgorithm? {
        guard let offered else { return .sha256 }
        let names = Set(list(offered).map { $0.lowercased() })
        return BlockChecksumAlgorithm.allCases.first { names.contains($0.rawValue) }
    }

    /// Number of blocks of `blockSize` bytes an upload of `length` bytes has (the last one may be short).
    public static func blockCount(length: Int64, blockSize: Int64) -> Int {
        guard blockSize > 0, length > 0 else { return 0 }
        return Int((length - 1) / blockSize + 1)
    }

    /// The byte range of block `index` in an upload of `length` bytes.
    public static func blockRange(_ index: Int, length: Int64, blockSize: Int64) -> ByteRange {
        let start = Int64(index).multipliedReportingOverflow(by: blockSize)
        guard !start.overflow, start.partialValue < length else { return ByteRange(offset: length, length: 0) }
        return ByteRange(offset: start.partialValue, length: min(blockSize, length - start.partialValue))
    }
}

import Foundation

extension TusProtocol {
    /// `block-checksum`: the server cuts an upload into blocks of ``TusProtocol/Header/blockSize`` bytes at fixed
    /// offsets, makes each one durable with its SHA-256 as it arrives, and finishes the upload only once the client
    /// has sent its own digest of every block (`Upload-Block-Digests` on an empty PATCH) and they all match. A block
    /// that does not is named in `Upload-Bad-Blocks` and sent again alone, at its own offset, with `Upload-Checksum`.
    public struct BlockDigests: Equatable, Sendable {
        /// Most digests one header carries (~3 KiB), so headers stay well inside every server's limits.
        public static let maxCount = 64
        /// Index of the first block described.
        public var first: Int
        /// SHA-256 of blocks `first`, `first + 1`, …
        public var digests: [[UInt8]]

        public init(first: Int, digests: [[UInt8]]) {
            self.first = first
            self.digests = digests
        }

        /// `<first> <base64>,<base64>,…`
        public var headerValue: String {
            "\(first) " + digests.map { Data($0).base64EncodedString() }.joined(separator: ",")
        }

        /// Reads a header value: nil unless the index is a plain number and every digest is 32 bytes, at most
        /// ``maxCount`` of them.
        public init?(header: String) {
            let parts = header.trimmingSpaces().split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2, let first = Int64(digits: String(parts[0])), first <= Int64(Int32.max) else { return nil }
            let items = parts[1].split(separator: ",", omittingEmptySubsequences: false)
            guard items.count <= Self.maxCount else { return nil }
            var digests: [[UInt8]] = []
            for item in items {
                guard let d = Data(base64Encoded: String(item).trimmingSpaces()), d.count == 32 else { return nil }
                digests.append(Array(d))
            }
            self.init(first: Int(first), digests: digests)
        }
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

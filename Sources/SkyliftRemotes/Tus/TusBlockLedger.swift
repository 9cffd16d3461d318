import Foundation
import SkyliftHashing
import SkyliftCore
import Synchronization

/// The client's side of `block-checksum`: the checksum of each block as it went out (recorded by
/// ``TusBlockStream`` on the transport's thread), and a reader of the source for blocks this process did not
/// send itself (sent before a crash) or must send again.
final class TusBlockLedger: Sendable {
    let blockSize: Int64
    let checksum: BlockChecksumAlgorithm
    let length: Int64
    private struct State {
        var digests: [Int: [UInt8]] = [:]
        var reader: (@Sendable (ByteRange) throws -> InputStream)?
    }
    private let state = Mutex(State())

    init(blockSize: Int64, checksum: BlockChecksumAlgorithm, length: Int64) {
        self.blockSize = blockSize
        self.checksum = checksum
        self.length = length
    }

    var blockCount: Int { TusProtocol.blockCount(length: length, blockSize: blockSize) }

    func range(of index: Int) -> ByteRange { TusProtocol.blockRange(index, length: length, blockSize: blockSize) }

    func record(_ index: Int, _ digest: [UInt8]) { state.withLock { $0.digests[index] = digest } }

    func attach(_ reader: @escaping @Sendable (ByteRange) throws -> InputStream) { state.withLock { $0.reader = reader } }

    /// Opens block `index` of the source; throws when no reader was attached.
    func open(_ index: Int) throws -> InputStream {
        guard let reader = state.withLock({ $0.reader }) else { throw TusBlockError.noReader }
        return try reader(range(of: index))
    }

    /// The checksum of block `index`: the one recorded as it was sent, else read from the source.
    func digest(_ index: Int) throws -> [UInt8] {
        if let d = state.withLock({ $0.digests[index] }) { return d }
        let d = try hash(index)
        record(index, d)
        return d
    }

    /// Reads block `index` from the source and checksums it.
    func hash(_ index: Int) throws -> [UInt8] {
        let stream = try open(index)
        stream.open()
        defer { stream.close() }
        var digest = BlockChecksum(checksum)
        var left = range(of: index).length
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 256 << 10)
        defer { buffer.deallocate() }
        while left > 0 {
            let n = stream.read(buffer.baseAddress!, maxLength: Int(min(Int64(buffer.count), left)))
            guard n > 0 else { throw TusBlockError.shortSource(block: index) }
            digest.update(UnsafeRawBufferPointer(start: buffer.baseAddress, count: n))
            left -= Int64(n)
        }
        return digest.finalizeAndReset()
    }
}

/// Why the client could not check its blocks.
enum TusBlockError: Error, CustomStringConvertible {
    case noReader
    case shortSource(block: Int)

    var description: String {
        switch self {
        case .noReader: "no source reader attached to the tus write"
        case let .shortSource(block): "the source ended inside block \(block)"
        }
    }
}

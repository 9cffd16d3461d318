import SkyliftBlobStream
import Foundation
import SkyliftHashing

/// An `InputStream` over a PATCH body that checksums it block by block as the transport reads it, recording
/// each finished block's checksum in a ``TusBlockLedger``: one pass over the bytes already in hand (CRC-32C:
/// a fraction of what copying them costs).
///
/// Read by one transport thread at a time and handed over by the opener closure, never shared.
final class TusBlockStream: ForwardingInputStream {
    private let ledger: TusBlockLedger
    private var position: Int64
    /// Nil until the stream reaches a block boundary (a body starting mid-block cannot checksum that block).
    private var digest: BlockChecksum?

    init(base: InputStream, offset: Int64, ledger: TusBlockLedger) {
        self.ledger = ledger
        position = offset
        digest = offset % ledger.blockSize == 0 ? BlockChecksum(ledger.checksum) : nil
        super.init(base: base)
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let n = base.read(buffer, maxLength: len)
        guard n > 0 else { return n }
        var done = 0
        while done < n {
            let blockEnd = min(ledger.length, (position / ledger.blockSize + 1) * ledger.blockSize)
            let take = Int(min(Int64(n - done), blockEnd - position))
            guard take > 0 else { break } // past the declared length: the transport refuses that itself
            digest?.update(UnsafeRawBufferPointer(start: buffer + done, count: take))
            position += Int64(take)
            done += take
            if position == blockEnd {
                if let d = digest?.finalizeAndReset() {
                    ledger.record(Int((position - 1) / ledger.blockSize), d)
                } else {
                    digest = BlockChecksum(ledger.checksum)
                }
            }
        }
        return n
    }
}

import BlobStream
import Foundation
import Hashing

/// An `InputStream` over a PATCH body that hashes it block by block as the transport reads it, recording each
/// finished block's SHA-256 in a ``TusBlockLedger``: the digests cost one pass over the bytes already in hand.
///
/// Read by one transport thread at a time and handed over by the opener closure, never shared.
final class TusBlockStream: ForwardingInputStream {
    private let ledger: TusBlockLedger
    private var position: Int64
    /// Nil until the stream reaches a block boundary (a body starting mid-block cannot hash that block).
    private var digest: Digest?

    init(base: InputStream, offset: Int64, ledger: TusBlockLedger) {
        self.ledger = ledger
        position = offset
        digest = offset % ledger.blockSize == 0 ? Digest(.sha256) : nil
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
                if let d = digest.take() { ledger.record(Int((position - 1) / ledger.blockSize), d.finalize()) }
                digest = Digest(.sha256)
            }
        }
        return n
    }
}

import Dispatch
import Foundation
import SkyliftSystem
import Synchronization

/// Opens a source and reads whole blocks from it, re-opening it when it reports itself invalid.
///
/// Shared by ``BlobInputStream`` and ``BlobChunks``. Every block comes from the version of the content
/// pinned at the first open: a re-open that finds another identity fails instead of mixing versions, and
/// a block interrupted by invalidation is read again from its start.
final class BlobReader: Sendable {
    let source: any BlobSource
    /// Consecutive re-opens allowed without completing a block.
    let reopenLimit: Int
    private let pinned = Mutex<BlobInfo?>(nil)

    init(source: any BlobSource, reopenLimit: Int = 8) {
        self.source = source
        self.reopenLimit = reopenLimit
    }

    var name: String { source.name }
    var info: BlobInfo? { pinned.withLock { $0 } }

    /// Records the result of an open done elsewhere (asynchronous mode); later re-opens must match it.
    func pin(_ info: BlobInfo) { pinned.withLock { $0 = info } }

    /// Opens the source, waits for its completion and pins the content's identity.
    func openBlocking() throws -> BlobInfo {
        let info = try openSource()
        pin(info)
        return info
    }

    /// Waits for the source's open completion, refusing to wait where the completion cannot run.
    private func openSource() throws -> BlobInfo {
        if let queue = source.openCompletionQueue, QueueProbe.isCurrent(queue) {
            throw BlobStreamError.synchronousOpenWouldDeadlock(name: source.name)
        }
        return try BlockingExecutor.waitFor { source.open(completion: $0) }.get()
    }

    /// Fills `buffer` with the bytes at `offset` (fewer only at the end of the content); returns the count.
    func readBlock(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard let info else { throw BlobStreamError.notOpen(name: source.name) }
        let want = Int(min(Int64(buffer.count), max(0, info.length - offset)))
        var reopens = 0
        var filled = 0
        while filled < want {
            do {
                if !source.isValid { throw BlobStreamError.invalidated(name: source.name) }
                let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[filled ..< want])
                let n = try source.read(into: slice, at: offset + Int64(filled))
                if n <= 0 {
                    throw BlobStreamError.truncated(name: source.name, expected: info.length, actual: offset + Int64(filled))
                }
                filled += n
            } catch BlobStreamError.invalidated {
                reopens += 1
                if reopens > reopenLimit {
                    throw BlobStreamError.reopenLimitReached(name: source.name, attempts: reopenLimit)
                }
                try reopen(expecting: info.identity)
                // Bytes read before the invalidation may predate it; read the block again from its start.
                filled = 0
            }
        }
        return filled
    }

    private func reopen(expecting identity: BlobIdentity) throws {
        source.close()
        let fresh = try openSource()
        guard fresh.identity == identity else {
            source.close()
            throw BlobStreamError.contentChanged(name: source.name)
        }
    }

    func close() { source.close() }
}

/// Tells whether code runs on a given dispatch queue, by tagging the queue with a value only it carries.
enum QueueProbe {
    private static let key = DispatchSpecificKey<UInt>()

    static func isCurrent(_ queue: DispatchQueue) -> Bool {
        if queue === DispatchQueue.main { return Thread.isMainThread }
        let tag = UInt(bitPattern: ObjectIdentifier(queue).hashValue)
        queue.setSpecific(key: key, value: tag)
        return DispatchQueue.getSpecific(key: key) == tag
    }
}

import Foundation
import SkyliftRemotes
import SkyliftCore

// A server out of space (HTTP 507): sending again at once would only send the refused bytes again, so the engine
// asks what the server kept, puts progress back there, and either waits for space (minutes, growing) or stops
// saying what is kept and how to continue or discard it.
extension Job {
    /// Handles a 507 from any request of the upload. Returns once it is worth trying again (after a wait, from the
    /// server's offset); throws ``UploadError/outOfSpace(source:kept:total:resumable:waited:)`` when the policy
    /// allows no more waiting.
    mutating func waitForSpace(write: (any RemoteWrite)?, progress: ProgressSampler) async throws {
        let length = source.length
        let resumable = write?.isResumable ?? false
        let kept = await keptOnServer(write)
        // Bytes the server refused were streamed, not stored: progress goes back to what the server holds.
        progress.base = (kept ?? 0) - sent.total
        emit(.progress(TransferProgress(completed: kept ?? 0, total: length, rate: 0)))
        spaceWaits += 1
        let remaining = options.retry.spaceWait - spaceWaited
        guard remaining > 0 else {
            if let w = write, !w.isResumable { try? await w.abort() }
            // No write yet (the server refused the upload at creation): nothing is kept, and that is known.
            throw UploadError.outOfSpace(source: source.name, kept: resumable || write == nil ? kept : nil, total: length,
                                         resumable: resumable, waited: spaceWaited)
        }
        let delay = min(options.retry.spaceDelay(beforeWait: spaceWaits), remaining)
        emit(.waitingForSpace(kept: kept ?? 0, total: length, delay: delay, waited: spaceWaited))
        try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
        spaceWaited += delay
        // A fresh bound for the ordinary retries: the server answered, it was only full.
        attempts = 0
    }

    /// What the server holds of the upload now (HEAD for tus, the part list for parted writes); nil when it
    /// cannot tell, 0 without a resumable write.
    func keptOnServer(_ write: (any RemoteWrite)?) async -> Int64? {
        guard let write, write.isResumable else { return 0 }
        if let parted = write as? any PartedWrite { return try? await parted.held(length: source.length).bytes }
        return try? await write.confirmedOffset()
    }
}

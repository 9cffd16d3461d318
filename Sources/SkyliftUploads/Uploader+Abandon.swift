import Foundation
import SkyliftRemotes

/// What ``Uploader/abandon(source:as:)`` found and did.
public enum AbandonOutcome: Sendable, Equatable {
    /// The server's unfinished upload was aborted (tus termination, S3 AbortMultipartUpload) and the resume
    /// record removed; the server had confirmed `confirmed` bytes of it.
    case aborted(confirmed: Int64)
    /// The server would not remove the unfinished upload (after retries): it still holds `confirmed` bytes of it
    /// (nil: unknown), and the resume record is kept so that a later `--cancel` can try again.
    case kept(confirmed: Int64?, reason: String)
    /// A record existed but the server no longer holds a resumable upload for it; the record was removed.
    case forgotten
    /// No unfinished upload of this source to this name is recorded.
    case nothingRecorded
}

extension Uploader {
    /// Gives up the unfinished upload of `source` (the source name as recorded: an absolute path or a URL) to
    /// `name`, so that neither the server nor the resume state keeps its parts. A later upload starts afresh.
    public func abandon(source: String, as name: String) async throws -> AbandonOutcome {
        let destination = RemotePath.url(name, in: remote.folderURL).absoluteString
        guard let record = await store.load(source: source, destination: destination), !record.completed else {
            return .nothingRecorded
        }
        guard let token = record.token,
              let write = try await remote.resumeWrite(name, length: record.length, token: token) else {
            await store.remove(source: source, destination: destination)
            return .forgotten
        }
        let held: Int64? = if let parted = write as? any PartedWrite {
            try? await parted.held(length: record.length).bytes
        } else {
            try? await write.confirmedOffset()
        }
        let confirmed = held ?? record.confirmedOffset
        if let error = await remove(write) { return .kept(confirmed: held, reason: "\(error)") }
        await store.remove(source: source, destination: destination)
        return .aborted(confirmed: confirmed)
    }
}

import SkyliftFolderWatch
import SkyliftUploads

/// Sends single files to the destination. The watch agent's only view of the upload engine, so the
/// queue logic runs the same over any engine.
public protocol FileUploading: Sendable {
    /// The destination, for messages (no credentials in it).
    var destination: String { get }
    /// Uploads the file at `localPath` as `remotePath` (folders created as needed), replacing what is
    /// there, resuming an earlier interrupted attempt of the same content from the server's offset.
    /// Cancellation stops at a resumable point and throws `.cancelled`. `resume` keeps the upload's resume
    /// record (the file's queue row), so a crash at any point finds the upload, or the finished object, again.
    func upload(localPath: String, as remotePath: String, expected: FileSnapshot, resume: any ResumeStore,
                report: @escaping @Sendable (UploadReport) -> Void) async throws(UploadFailure)
    /// Removes `remotePath` from the destination (missing is fine).
    func delete(_ remotePath: String) async throws(UploadFailure)
    /// Moves the remote copy `from` (a file, or a folder with everything under it) to `to`, replacing what is
    /// there, without sending anything again. `.failed` when the destination cannot move.
    func move(_ from: String, to: String) async throws(UploadFailure)
}

/// Progress of one upload, as the engine reports it.
public enum UploadReport: Sendable, Equatable {
    /// An earlier attempt's bytes were found on the server.
    case resumed(from: Int64)
    /// Bytes the server holds so far.
    case progress(sent: Int64)
    /// The destination already held this content; nothing was sent.
    case skipped
}

/// Why one upload did not complete, sorted by what the agent does about it.
public enum UploadFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is gone: drop it from the queue without a word.
    case vanished
    /// The file changed while being sent: wait for it to settle again.
    case changed
    /// The destination refused the credentials: stop the agent.
    case refused(url: String, status: Int)
    /// Stopped on request, at a resumable point.
    case cancelled
    /// The server is out of space (HTTP 507) and keeps `kept` bytes (nil: unknown): pause the file until space
    /// may be back, then continue from the server's offset.
    case outOfSpace(kept: Int64?, reason: String)
    /// Anything else: retry later with backoff.
    case failed(String)

    public var description: String {
        switch self {
        case .vanished: "the file disappeared"
        case .changed: "the file changed during the upload"
        case let .refused(url, status): "\(url) refused the credentials (HTTP \(status))"
        case .cancelled: "cancelled"
        case let .outOfSpace(_, reason): reason
        case let .failed(reason): reason
        }
    }
}

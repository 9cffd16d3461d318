import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore

/// The resumable upload engine: one source to one name in a remote, through the steps
/// skip-check → reattach or create → (digest part → send part)* → finish → confirm size → verify.
///
/// Resume state is written before the first byte goes out and after every confirmed part; the server's
/// offset always wins over the record, so a run after kill -9 re-sends at most the parts in flight.
///
/// Where the remote takes parts in any order (`PartedWrite`: S3 multipart), `options.parts` of them go at
/// once; otherwise parts follow each other from the server's offset. The engine is the one place that retries:
/// remotes, clients and transports send each request once, and every failure is sorted by
/// `RemoteError.disposition` under one `RetryPolicy`.
public struct Uploader: Sendable {
    public let remote: any Remote
    public let store: any ResumeStore
    public let options: UploadOptions

    public init(remote: any Remote, store: any ResumeStore, options: UploadOptions = UploadOptions()) {
        self.remote = remote
        self.store = store
        self.options = options
    }

    /// Starts uploading `source` to `name` (a relative path in the remote's folder) and returns its handle.
    public func start(_ source: any UploadSource, as name: String) -> UploadHandle {
        UploadHandle { emit in try await self.run(source, as: name, emit: emit) }
    }

    /// Runs the upload to completion, reporting through `emit`.
    public func run(_ source: any UploadSource, as name: String, emit: @escaping @Sendable (UploadEvent) -> Void) async throws -> UploadResult {
        let destination = RemotePath.url(name, in: remote.folderURL).absoluteString
        var job = Job(uploader: self, source: source, name: name, destination: destination, emit: emit)
        return try await job.run()
    }
}

import Foundation
import SkyliftFolderWatch
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore
import SkyliftUploads

/// `FileUploading` over the resumable upload engine (`Uploads.Uploader`): tus when the destination offers
/// it, WebDAV PUT otherwise, S3 multipart with parallel parts. The engine keeps each upload's resume record in
/// the file's queue row (``QueueResumeStore``) before the first byte is sent and always asks the server what it
/// holds, so an interrupted upload continues where the server stopped, in this process or the next. Retries
/// happen inside the engine; the agent only re-queues a file whose run failed for good.
public struct EngineUploader: FileUploading {
    public let remote: any Remote
    public let options: UploadOptions
    public var destination: String { remote.folderURL.absoluteString }

    public init(remote: any Remote, options: UploadOptions = UploadOptions()) {
        self.remote = remote
        self.options = options
    }

    /// Finds out what `url` speaks (OPTIONS) and builds the engine for it.
    public static func connect(to url: URL, token: String?, transport: any HTTPTransport = makeDefaultTransport(),
                               options: UploadOptions = UploadOptions()) async throws(AutoUploadError) -> EngineUploader {
        let http = RemoteHTTP(transport: transport, headers: RemoteHTTP.headers(token: token))
        do {
            let remote = try await RemoteDiscovery(http: http, partLength: options.partLength, tusPartials: options.tusPartials).discover(url)
            return EngineUploader(remote: remote, options: options)
        } catch let error as RemoteError {
            if let status = error.status, status == 401 || status == 403 {
                throw .authenticationRefused(url: Redaction.url(url), status: status)
            }
            throw .destinationUnusable(url: Redaction.url(url), reason: error.description)
        } catch {
            throw .destinationUnusable(url: Redaction.url(url), reason: "\(error)")
        }
    }

    public func upload(localPath: String, as remotePath: String, expected: FileSnapshot, resume: any ResumeStore,
                       report: @escaping @Sendable (UploadReport) -> Void) async throws(UploadFailure) {
        let source: BlobUploadSource
        do {
            source = try await BlobUploadSource.file(localPath)
        } catch {
            throw Self.failure(error)
        }
        guard source.length == expected.size else { throw .changed }
        do {
            // Run inside this task (not a detached handle) so cancelling the agent's worker pauses the upload.
            _ = try await Uploader(remote: remote, store: resume, options: options).run(source, as: remotePath) { event in
                switch event {
                case let .resumed(offset): report(.resumed(from: offset))
                case let .progress(progress): report(.progress(sent: progress.completed))
                case .skipped: report(.skipped)
                default: break
                }
            }
        } catch {
            throw Self.failure(error)
        }
    }

    public func delete(_ remotePath: String) async throws(UploadFailure) {
        do {
            try await remote.delete(remotePath)
        } catch {
            throw Self.failure(error)
        }
    }

    public func move(_ from: String, to: String) async throws(UploadFailure) {
        do {
            try await remote.move(from, to: to)
        } catch {
            throw Self.failure(error)
        }
    }

    /// Sorts the engine's errors by what the agent does about them.
    static func failure(_ error: any Error) -> UploadFailure {
        if error is CancellationError { return .cancelled }
        if let remote = error as? RemoteError { return failure(remote) }
        guard let upload = error as? UploadError else { return .failed("\(error)") }
        switch upload {
        case .sourceMissing: return .vanished
        case .sourceChanged: return .changed
        case .cancelled: return .cancelled
        case .sourceChangedUploadKept: return .changed
        case let .outOfSpace(_, kept, total, _, _):
            return .outOfSpace(kept: kept, reason: "server out of space: \(kept.map { ByteCount.format($0) } ?? "part") of \(ByteCount.format(total)) kept on the server")
        case let .remote(_, e): return failure(e)
        case let .retriesExhausted(_, _, last):
            if case .refused = failure(last) { return failure(last) }
            return .failed(upload.description)
        default: return .failed(upload.description)
        }
    }

    static func failure(_ error: RemoteError) -> UploadFailure {
        if case let .status(code, _, url, _) = error, code == 401 || code == 403 {
            return .refused(url: Redaction.url(url), status: code)
        }
        return .failed(error.description)
    }
}

import Foundation
import FolderWatch
import HTTPClient
import Remotes
import SkyliftCore
import Synchronization
import Uploads

/// `FileUploading` over the resumable upload engine (`Uploads.Uploader`): tus when the destination offers
/// it, WebDAV PUT otherwise. The engine keeps each upload's URL in its resume store before the first byte
/// is sent and always asks the server for its offset, so an interrupted upload continues where the server
/// stopped, in this process or the next.
public struct EngineUploader: FileUploading {
    public let uploader: Uploader
    public var destination: String { uploader.remote.folderURL.absoluteString }

    public init(uploader: Uploader) {
        self.uploader = uploader
    }

    /// Finds out what `url` speaks (OPTIONS) and builds the engine, with its resume records under `stateDirectory`.
    public static func connect(to url: URL, token: String?, stateDirectory: URL,
                               transport: any HTTPTransport = makeDefaultTransport(),
                               options: UploadOptions = UploadOptions()) async throws(AutoUploadError) -> EngineUploader {
        let http = RemoteHTTP(transport: transport, headers: RemoteHTTP.headers(token: token))
        do {
            let remote = try await RemoteDiscovery(http: http, partLength: options.partLength).discover(url)
            return EngineUploader(uploader: Uploader(remote: remote, store: ResumeStore(directory: stateDirectory), options: options))
        } catch let error as RemoteError {
            if let status = error.status, status == 401 || status == 403 {
                throw .authenticationRefused(url: Redaction.url(url), status: status)
            }
            throw .destinationUnusable(url: Redaction.url(url), reason: error.description)
        } catch {
            throw .destinationUnusable(url: Redaction.url(url), reason: "\(error)")
        }
    }

    public func upload(localPath: String, as remotePath: String, expected: FileSnapshot,
                       report: @escaping @Sendable (UploadReport) -> Void) async throws(UploadFailure) {
        let source: BlobUploadSource
        do {
            source = try await BlobUploadSource.file(localPath)
        } catch {
            throw Self.failure(error)
        }
        guard source.length == expected.size else { throw .changed }
        let store = uploader.store
        let destination = RemotePath.url(remotePath, in: uploader.remote.folderURL).absoluteString
        let announced = UploadURLAnnouncer()
        // Whatever happens, the queue learns the upload URL the engine stored (for `status` and diagnosis).
        defer {
            announced.once { store.load(source: source.name, destination: destination)?.token }.map { report(.uploadURL($0)) }
        }
        do {
            // Run inside this task (not a detached handle) so cancelling the agent's worker pauses the upload.
            _ = try await uploader.run(source, as: remotePath) { event in
                switch event {
                case let .resumed(offset):
                    announced.once { store.load(source: source.name, destination: destination)?.token }.map { report(.uploadURL($0)) }
                    report(.resumed(from: offset))
                case let .progress(progress):
                    announced.once { store.load(source: source.name, destination: destination)?.token }.map { report(.uploadURL($0)) }
                    report(.progress(sent: progress.completed))
                case .skipped:
                    report(.skipped)
                default:
                    break
                }
            }
        } catch {
            throw Self.failure(error)
        }
    }

    public func forget(localPath: String, as remotePath: String) {
        let source = URL(fileURLWithPath: localPath).standardizedFileURL.path
        let destination = RemotePath.url(remotePath, in: uploader.remote.folderURL).absoluteString
        uploader.store.remove(source: source, destination: destination)
    }

    public func delete(_ remotePath: String) async throws(UploadFailure) {
        do {
            try await uploader.remote.delete(remotePath)
        } catch {
            throw Self.failure(error)
        }
    }

    public func move(_ from: String, to: String) async throws(UploadFailure) {
        do {
            try await uploader.remote.move(from, to: to)
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

/// Reports the upload URL once, the first time the engine's resume record holds it.
final class UploadURLAnnouncer: Sendable {
    private let done = Mutex(false)

    func once(_ load: () -> String?) -> String? {
        done.withLock { d -> String? in
            guard !d, let url = load() else { return nil }
            d = true
            return url
        }
    }
}

import Foundation
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore

/// A place files come back from: the embedded cloud or another WebDAV server, a plain http(s) URL, or an
/// S3 prefix. It lists what is under the source and reads byte ranges pinned to a validator.
public protocol DownloadOrigin: Sendable {
    /// The source as given, for messages.
    var label: String { get }
    /// The files under the source that `filter` keeps, paths relative to the source (a file source lists
    /// itself under its own name), and whether the source is a folder (`--delete` acts only on folders).
    func list(filter: PathFilter) async throws(DownloadError) -> (entries: [DownloadEntry], isFolder: Bool)
    /// Bytes of `entry` from `range` (nil: all of it) while the remote still has `validator`: a 200 or 206
    /// answer, whose body the caller streams. A changed remote answers 200 to a ranged request with a
    /// validator (HTTP `If-Range`), or fails with status 412 (S3 `If-Match`); other refusals throw.
    func read(_ entry: DownloadEntry, range: ByteRange?, validator: String?) async throws(DownloadError) -> HTTPClientResponse
    /// The validator and digests the answer to a read announces for the whole file.
    func describe(_ response: HTTPClientResponse, partial: Bool) -> (validator: String?, digests: ServedDigests)
}

/// Which relative paths a download takes: `--include` and `--exclude` globs, decided by the caller.
public struct PathFilter: Sendable {
    /// Whether the file at `path` is taken.
    public var takesFile: @Sendable (String) -> Bool
    /// Whether the folder at `path` is walked at all.
    public var entersFolder: @Sendable (String) -> Bool

    public init(takesFile: @escaping @Sendable (String) -> Bool = { _ in true },
                entersFolder: @escaping @Sendable (String) -> Bool = { _ in true }) {
        self.takesFile = takesFile
        self.entersFolder = entersFolder
    }

    public static let everything = PathFilter()
}

extension HTTPClientResponse {
    /// The validator this answer carries: a strong ETag, else `Last-Modified`.
    var validator: String? {
        if let etag = headers["ETag"], !etag.isEmpty, !EntityTag.isWeak(etag) { return etag }
        return headers["Last-Modified"]
    }
}

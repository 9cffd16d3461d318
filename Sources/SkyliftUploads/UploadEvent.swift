import Foundation
import SkyliftCore

/// Something that happened to one upload, in order; the last event is `done`, `skipped` or `failed`.
public enum UploadEvent: Sendable {
    /// The upload began: `protocolName` is `tus`, `webdav` or `s3`.
    case started(source: String, destination: String, length: Int64, protocolName: String)
    /// An earlier attempt's bytes were found on the server; sending continues from `offset`.
    case resumed(from: Int64)
    /// The earlier attempt could not be continued and the upload starts over (source changed, upload expired).
    case restarted(reason: String)
    /// Bytes sent so far (at most four of these a second).
    case progress(TransferProgress)
    /// A transient failure; another attempt follows after `delay` seconds.
    case retried(attempt: Int, delay: Double, reason: String)
    /// The server is out of space (HTTP 507) and keeps `kept` of `total` bytes; the next attempt follows after
    /// `delay` seconds (growing), `waited` seconds having been spent waiting so far. Nothing it kept is sent again.
    case waitingForSpace(kept: Int64, total: Int64, delay: Double, waited: Double)
    /// The destination already holds this content.
    case skipped(reason: String)
    /// The server confirmed the whole object.
    case done(UploadResult)
    /// The upload stopped.
    case failed(UploadError)
}

/// A confirmed upload.
public struct UploadResult: Sendable, Hashable {
    public var source: String
    public var destination: String
    public var length: Int64
    /// Bytes sent in this run (including any re-sent).
    public var bytesSent: Int64
    /// The offset this run resumed from (0 when it started fresh).
    public var resumedFrom: Int64
    /// True when nothing was sent because the content was already there.
    public var skipped: Bool
    /// True when `--verify` compared SHA-256 of source and destination.
    public var verified: Bool
    public var etag: String?
}

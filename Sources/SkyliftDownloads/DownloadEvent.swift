import Foundation
import SkyliftCore

/// Something that happened while downloading, for the file (or source) at `path`.
public enum DownloadEvent: Sendable {
    /// A source was listed: `files` files, `bytes` bytes in all (what passed the filters).
    case listed(files: Int, bytes: Int64)
    /// The file's download began (from 0, or from the partial file's end: see `resumed`).
    case started(length: Int64?)
    /// A partial file from an earlier run was kept; reading continues at `from`.
    case resumed(from: Int64)
    /// What was fetched before is dropped and the file starts over (the remote changed, a digest mismatch).
    case restarted(reason: String)
    /// Bytes of the file on disk so far (at most four of these a second per file).
    case progress(TransferProgress)
    /// A transient failure; another attempt follows after `delay` seconds.
    case retried(attempt: Int, delay: Double, reason: String)
    /// The local file already holds the remote's content: nothing fetched.
    case skipped(reason: String)
    /// The file is in place under its final name.
    case done(DownloadResult)
    /// The file could not be brought back; nothing was put under its name.
    case failed(DownloadError)
    /// `--delete` removed this local file, which the remote no longer has.
    case deleted
}

/// A file brought back.
public struct DownloadResult: Sendable, Hashable {
    /// Path below the destination folder.
    public var path: String
    /// Bytes in the file.
    public var length: Int64
    /// Bytes read from the remote in this run (including any read twice).
    public var fetched: Int64
    /// Where this run started reading (the partial file's length when resumed).
    public var resumedFrom: Int64
    /// The digest the bytes were checked against (`sha-256`, `md5`), nil when the remote served none.
    public var verified: String?
    /// True when the local file already held the content and nothing was fetched.
    public var skipped = false
}

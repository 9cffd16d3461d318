import Foundation
import SkyliftHashing
import SkyliftCore

/// One remote file to bring back: where it lands (relative to the destination folder) and what the remote
/// said about it when it was listed.
public struct DownloadEntry: Sendable, Hashable {
    /// Path below the destination folder, `/`-separated, checked to stay inside it (``isSafe(_:)``).
    public var path: String
    /// Where the origin reads it: an http(s) URL, or an S3 name below the prefix.
    public var locator: String
    /// The URL for messages (redacted when shown).
    public var url: URL
    /// Bytes, when the remote said.
    public var length: Int64?
    /// The validator a resumed read is pinned to (`If-Range`, S3 `If-Match`), as the listing gave it.
    public var etag: String?
    /// The remote's modification time, which the local file gets.
    public var lastModified: Date?
    /// What the remote says the bytes hash to.
    public var digests: ServedDigests

    public init(path: String, locator: String, url: URL, length: Int64?, etag: String?, lastModified: Date?,
                digests: ServedDigests = ServedDigests()) {
        self.path = path
        self.locator = locator
        self.url = url
        self.length = length
        self.etag = etag
        self.lastModified = lastModified
        self.digests = digests
    }

    /// The validator to pin reads to: a strong ETag, else the modification time as an HTTP date (RFC 9110
    /// §13.1.5 lets `If-Range` carry either); nil when the remote gave neither.
    public var validator: String? {
        if let etag, !EntityTag.isWeak(etag), !etag.isEmpty { return etag }
        return lastModified.map(HTTPDate.format)
    }

    /// Whether two validators name the same version: the same strong ETag, or the same time however the two
    /// HTTP dates are spelled.
    public static func sameValidator(_ a: String, _ b: String?) -> Bool {
        guard let b else { return false }
        if a == b { return true }
        if let x = HTTPDate.parse(a), let y = HTTPDate.parse(b) { return x == y }
        return false
    }

    /// Whether `path` is a partial transfer's hidden name (`.NAME.skylift-part`, `.NAME.skylift-resume`): a
    /// download's own, or an upload's left on a WebDAV server; never content to bring back.
    public static func isPartialName(_ path: String) -> Bool {
        let leaf = path.split(separator: "/").last.map(String.init) ?? path
        return leaf.hasPrefix(".") && (leaf.hasSuffix(".skylift-part") || leaf.hasSuffix(".skylift-resume"))
    }

    /// Whether `path` stays below the destination: relative, no `.`/`..`/empty segments, no NUL or backslash.
    public static func isSafe(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return !path.isEmpty && !path.hasPrefix("/") && !path.contains("\0") && !path.contains("\\")
            && !parts.contains { $0 == ".." || $0 == "." || $0.isEmpty }
    }
}

/// Digests a remote serves for a file's whole content.
public struct ServedDigests: Sendable, Hashable {
    /// SHA-256 (`Repr-Digest`, PROPFIND `repr-digest` or `oc:checksums`, S3 `x-amz-checksum-sha256`).
    public var sha256: [UInt8]?
    /// MD5 (`oc:checksums`, or the ETag of an S3 object stored by one PUT).
    public var md5: [UInt8]?

    public init(sha256: [UInt8]? = nil, md5: [UInt8]? = nil) {
        self.sha256 = sha256
        self.md5 = md5
    }

    /// Whether the remote serves no digest at all.
    public var isEmpty: Bool { sha256 == nil && md5 == nil }

    /// The algorithm to hash with while downloading: SHA-256 unless only MD5 is served.
    public var algorithm: DigestAlgorithm { sha256 == nil && md5 != nil ? .md5 : .sha256 }

    /// The served digest for `algorithm`.
    public func value(_ algorithm: DigestAlgorithm) -> [UInt8]? {
        switch algorithm {
        case .sha256: sha256
        case .md5: md5
        case .sha1: nil
        }
    }

    /// Each digest this one lacks, taken from `other`.
    public func merged(_ other: ServedDigests) -> ServedDigests {
        ServedDigests(sha256: sha256 ?? other.sha256, md5: md5 ?? other.md5)
    }
}

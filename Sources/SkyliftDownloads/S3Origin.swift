import Foundation
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore
import SkyliftS3

/// An S3 prefix (`s3://bucket/photos/`, every key below it, ListObjectsV2 page by page) or one object
/// (`s3://bucket/photos/a.jpg`). Reads are signed ranged GETs pinned with `If-Match` to the listed ETag.
public struct S3Origin: DownloadOrigin {
    /// The bucket, and the prefix or key as given.
    public let remote: S3Remote
    public let label: String

    /// `remote` addresses the bucket and the source's key (or prefix) as given.
    public init(remote: S3Remote, label: String) {
        self.remote = remote
        self.label = label
    }

    public func list(filter: PathFilter) async throws(DownloadError) -> (entries: [DownloadEntry], isFolder: Bool) {
        let bucket = remote.location.bucket, given = remote.location.prefix
        if !given.isEmpty, !given.hasSuffix("/"), let object = try await single(given) { return ([object], false) }
        let prefix = given.isEmpty || given.hasSuffix("/") ? given : given + "/"
        let objects: [S3ObjectSummary]
        do { objects = try await remote.client.listObjects(bucket: bucket, prefix: prefix) } catch {
            throw Self.failure(remote.remoteError(error, method: "GET", name: ""))
        }
        var entries: [DownloadEntry] = []
        for object in objects where !object.key.hasSuffix("/") {
            let path = String(object.key.dropFirst(prefix.count))
            let url = S3Remote.url(bucket: bucket, key: object.key)
            guard DownloadEntry.isSafe(path) else { throw .unsafeName(url: url, name: object.key) }
            guard Self.folders(of: path).allSatisfy(filter.entersFolder), filter.takesFile(path) else { continue }
            entries.append(DownloadEntry(path: path, locator: object.key, url: url, length: object.size, etag: object.etag,
                                         lastModified: object.lastModified, digests: ServedDigests(md5: Self.md5(etag: object.etag))))
        }
        return (entries, true)
    }

    /// The object named exactly `key`, or nil when there is none (the source is then a prefix).
    private func single(_ key: String) async throws(DownloadError) -> DownloadEntry? {
        let stat: (info: ContentInfo, sha256: [UInt8]?)
        do {
            stat = try await remote.client.statObject(bucket: remote.location.bucket, key: key)
        } catch let error as S3Error where error.status == 404 {
            return nil
        } catch {
            throw Self.failure(remote.remoteError(error, method: "HEAD", name: ""))
        }
        let name = key.split(separator: "/").last.map(String.init) ?? key
        let url = S3Remote.url(bucket: remote.location.bucket, key: key)
        guard DownloadEntry.isSafe(name) else { throw .unsafeName(url: url, name: key) }
        return DownloadEntry(path: name, locator: key, url: url, length: stat.info.length, etag: stat.info.etag,
                             lastModified: stat.info.lastModified,
                             digests: ServedDigests(sha256: stat.sha256, md5: stat.info.etag.flatMap(Self.md5(etag:))))
    }

    public func read(_ entry: DownloadEntry, range: ByteRange?, validator: String?) async throws(DownloadError) -> HTTPClientResponse {
        do {
            return try await remote.client.getObject(bucket: remote.location.bucket, key: entry.locator, range: range, ifMatch: validator,
                                                     checksums: range == nil)
        } catch {
            throw Self.failure(remote.remoteError(error, method: "GET", name: ""), url: entry.url)
        }
    }

    public func describe(_ response: HTTPClientResponse, partial: Bool) -> (validator: String?, digests: ServedDigests) {
        let etag = response.headers["ETag"]
        return (etag, ServedDigests(sha256: partial ? nil : S3Client.objectSHA256(response.headers), md5: etag.flatMap(Self.md5(etag:))))
    }

    /// The MD5 an ETag is, for objects stored by one PUT: 32 hex digits in quotes. A multipart object's ETag
    /// (`"…-3"`) is a hash of its parts' hashes, not of the bytes.
    static func md5(etag: String) -> [UInt8]? {
        let hex = etag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        guard hex.count == 32, let bytes = Hex.bytes(hex), bytes.count == 16 else { return nil }
        return bytes
    }

    /// `a`, `a/b` for `a/b/c.jpg`.
    static func folders(of path: String) -> [String] { RemotePath.parents(of: path) }

    /// A failure, with the object's URL rather than the prefix's where `url` is given.
    static func failure(_ error: any Error, url: URL? = nil) -> DownloadError {
        if case let RemoteError.status(code, method, _, detail)? = error as? RemoteError, let url {
            return .remote(.status(code, method: method, url: url, detail: detail))
        }
        return WebDAVOrigin.failure(error)
    }
}

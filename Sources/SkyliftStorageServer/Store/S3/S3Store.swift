import Foundation
import SkyliftCore
import SkyliftHTTPClient
import SkyliftS3

/// The embedded cloud's files and folders as objects of one bucket below a key prefix: the object layer a
/// `serve --store s3://…` will sit on, so that several instances share one bucket.
///
/// A file is the object `<prefix><path>`; a folder is the key prefix `<prefix><path>/`, present when a folder
/// marker object of that name (empty, made by ``makeFolder(_:)``) or any key below it exists. The store keeps its
/// own objects under `<prefix>.skylift/` (move journals, unfinished uploads, state objects), which paths cannot
/// name and listings leave out.
///
/// Every method sends its requests through the `S3Client` and waits for them; nothing is cached, so every
/// instance over the bucket sees what any other wrote (S3 is read-after-write consistent per key). Errors are
/// ``S3StoreError``.
public final class S3Store: Sendable {
    /// The client that signs and sends every request.
    public let client: S3Client
    /// The bucket holding the store.
    public let bucket: String
    /// The key prefix of the store's root: empty, or ending in `/`.
    public let prefix: String
    /// The part size of multipart writes (at least S3's 5 MiB), also the most a write holds in memory.
    public let partSize: Int
    /// The running SHA-256 of the resumable writes appended to here, covering their whole parts.
    let runningDigests = StreamedDigests()

    /// The metadata field (`x-amz-meta-skylift-sha256`) holding a file's SHA-256 in hex.
    public static let sha256Field = "skylift-sha256"
    /// The folder below the prefix that holds the store's own objects.
    static let systemFolder = ".skylift"

    /// A store over `location` (bucket and prefix; a prefix without a trailing `/` gets one) through `client`.
    public init(client: S3Client, location: S3Location, partSize: Int = 8 << 20) {
        self.client = client
        bucket = location.bucket
        prefix = location.prefix.isEmpty || location.prefix.hasSuffix("/") ? location.prefix : location.prefix + "/"
        self.partSize = max(partSize, Int(S3PartSize.smallest))
    }

    // MARK: Paths and keys

    /// `path` without leading or trailing `/`, checked: no empty, `.` or `..` component, not the store's own folder.
    static func checked(_ path: String, operation: String) throws -> String {
        var trimmed = Substring(path)
        while trimmed.hasPrefix("/") { trimmed = trimmed.dropFirst() }
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        if trimmed.isEmpty { return "" }
        let components = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        let valid = components.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." } && components.first != Substring(systemFolder)
        guard valid else { throw S3StoreError(operation: operation, path: path, reason: .invalidPath) }
        return String(trimmed)
    }

    /// The object key of the file `path`.
    func key(_ path: String) -> String { prefix + path }

    /// The key prefix of the folder `path` (the prefix itself for the root); also its marker's key.
    func folderKey(_ path: String) -> String { path.isEmpty ? prefix : prefix + path + "/" }

    /// The key of the store's own object `name` (`moves/<id>`, `state/<name>` …).
    func systemKey(_ name: String) -> String { prefix + Self.systemFolder + "/" + name }

    /// The store path of `key`, which starts with `prefix`.
    func path(ofKey key: String) -> String {
        String(decoding: key.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
    }

    // MARK: Reading

    /// The SHA-256 recorded in an object's metadata (``sha256Field``); nil when absent or not 32 bytes of hex.
    static func recordedSHA256(in metadata: [String: String]) -> [UInt8]? {
        metadata[sha256Field].flatMap(Hex.bytes).flatMap { $0.count == 32 ? $0 : nil }
    }

    /// The file or folder at `path`, or nil when neither exists. A file's entry comes from its HEAD (size, ETag,
    /// Last-Modified, content type, the SHA-256 recorded in its metadata); a folder's from its marker or the
    /// first key below it. The root always exists.
    public func stat(_ path: String) async throws -> S3StoreEntry? {
        let path = try Self.checked(path, operation: "stat")
        if path.isEmpty { return S3StoreEntry(path: "", kind: .folder) }
        do {
            let head = try await client.headObjectMetadata(bucket: bucket, key: key(path))
            let sha256 = Self.recordedSHA256(in: head.metadata)
            return S3StoreEntry(path: path, kind: .file, info: head.info, sha256: sha256)
        } catch let error as S3Error where error.status == 404 {
            // Not a file: perhaps a folder.
        } catch {
            throw S3StoreError.wrapping(error, operation: "stat", path: path)
        }
        do {
            let first = try await client.firstKey(bucket: bucket, prefix: folderKey(path))
            return first == nil ? nil : S3StoreEntry(path: path, kind: .folder)
        } catch {
            throw S3StoreError.wrapping(error, operation: "stat", path: path)
        }
    }

    /// The direct children of the folder `folder` (files and folders, every page of the listing), folders first.
    /// A folder that does not exist (no marker, nothing below it) is `notFound`; the root always exists.
    public func list(_ folder: String) async throws -> [S3StoreEntry] {
        let folder = try Self.checked(folder, operation: "list")
        let base = folderKey(folder)
        let listing: (objects: [S3ObjectSummary], commonPrefixes: [String])
        do {
            listing = try await client.listObjects(bucket: bucket, prefix: base, delimiter: "/")
        } catch {
            throw S3StoreError.wrapping(error, operation: "list", path: folder)
        }
        if !folder.isEmpty && listing.objects.isEmpty && listing.commonPrefixes.isEmpty {
            throw S3StoreError(operation: "list", path: folder, status: 404, reason: .notFound)
        }
        let system = systemKey("")
        let folders = listing.commonPrefixes.filter { $0 != system }.map { common in
            S3StoreEntry(path: String(path(ofKey: common).dropLast()), kind: .folder)
        }
        let files = listing.objects.filter { $0.key != base }.map { object in
            S3StoreEntry(path: path(ofKey: object.key), kind: .file,
                         info: ContentInfo(length: object.size, etag: object.etag, lastModified: object.lastModified))
        }
        return folders + files
    }

    /// The bytes of the file `path`, or of `range` of it, streamed: the response's body yields them as they
    /// arrive, nothing is read whole. With `ifMatch`, only while the file has that ETag (else status 412).
    public func read(_ path: String, range: ByteRange? = nil, ifMatch: String? = nil) async throws -> HTTPClientResponse {
        let path = try Self.checked(path, operation: "read")
        do {
            return try await client.getObject(bucket: bucket, key: key(path), range: range, ifMatch: ifMatch)
        } catch {
            throw S3StoreError.wrapping(error, operation: "read", path: path)
        }
    }

    /// Every key below `keyPrefix`, with sizes and ETags (all pages).
    func keys(under keyPrefix: String, operation: String, path: String) async throws -> [S3ObjectSummary] {
        do {
            return try await client.listObjects(bucket: bucket, prefix: keyPrefix)
        } catch {
            throw S3StoreError.wrapping(error, operation: operation, path: path)
        }
    }

    /// Removes object `key`; one already gone is no error.
    func remove(key: String, operation: String, path: String) async throws {
        do {
            try await client.deleteObject(bucket: bucket, key: key)
        } catch let error as S3Error where error.status == 404 {
        } catch {
            throw S3StoreError.wrapping(error, operation: operation, path: path)
        }
    }
}

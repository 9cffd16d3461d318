import Foundation
import SkyliftCore
import SkyliftHTTPClient
import SkyliftHTTPServer
import SkyliftSystem

/// An ``S3Store`` under the ``StoreBackend`` interface: files are objects, folders key prefixes.
///
/// Every call blocks its thread (one of the server's work threads, never an event loop) while the request to
/// the bucket runs on the backend's own executor, and gives up after ``timeout`` seconds. A file's read is
/// pinned to the ETag its lookup saw (`If-Match`), so a file replaced meanwhile ends the answer short instead of
/// mixing two versions.
struct BucketBackend: StoreBackend {
    let store: S3Store
    let executor: BlockingExecutor
    /// Longest wait for one answer (or one piece of a body) from the bucket, in seconds.
    let timeout: Double

    init(store: S3Store, threads: Int = 4, timeout: Double = 60) {
        self.store = store
        executor = BlockingExecutor(name: "skylift-bucket", threads: threads)
        self.timeout = timeout
    }


    /// The store path of `path`: its segments joined, no leading `/`.
    static func key(_ path: StoragePath) -> String { path.segments.joined(separator: "/") }

    func open(_ path: StoragePath) -> StoreLookup {
        do {
            guard let item = try item(path) else { return .missing }
            return item.isFolder ? .folder : .file(BucketFile(backend: self, path: Self.key(path), item: item))
        } catch { return .failed(error.response) }
    }

    func item(_ path: StoragePath) throws(StoreFailure) -> StoredItem? {
        let key = Self.key(path)
        return try wait("look up", path) { try await store.stat(key) }.map(Self.item)
    }

    func members(of path: StoragePath) throws(StoreFailure) -> [StoredMember] {
        let key = Self.key(path)
        let entries: [S3StoreEntry]
        do {
            entries = try wait("list", path) { try await store.list(key) }
        } catch where error.status == 404 {
            return []
        }
        return entries.compactMap { entry in
            // A key whose name the paths cannot hold (empty, `.`, `..`, the server's hidden prefix) is not served.
            guard let name = entry.path.split(separator: "/").last.map(String.init),
                  !name.isEmpty, name != ".", name != "..", !name.hasPrefix(PathResolver.hiddenPrefix) else { return nil }
            return StoredMember(path: path.appending(name), item: Self.item(entry))
        }.sorted { $0.path.name < $1.path.name }
    }

    func propertyReader(for target: StoragePath, members: Bool) -> any DeadPropertyReader { BucketProperties(backend: self) }

    func digestRecord(_ path: StoragePath, _ item: StoredItem) -> DigestRecord? { Self.record(item) }

    /// The SHA-256 the object's metadata holds, as a record (listings carry none: only a HEAD has metadata).
    static func record(_ item: StoredItem) -> DigestRecord? {
        item.sha256.map { DigestRecord(sha256: $0, sha1: nil, md5: nil, size: item.size, mtime: FileTime(seconds: 0, nanoseconds: 0), inode: 0) }
    }

    static func item(_ entry: S3StoreEntry) -> StoredItem {
        switch entry.kind {
        case .folder: StoredItem(isFolder: true, size: 0, etag: nil, lastModified: nil)
        case .file: StoredItem(isFolder: false, size: entry.info.length ?? 0, etag: entry.info.etag,
                               lastModified: entry.info.lastModified, sha256: entry.sha256)
        }
    }

    /// Runs `work` against the bucket and waits for it; a failure becomes the answer it deserves: 404 for a
    /// missing object, 504 when the bucket did not answer in time, otherwise 502 naming what failed.
    func wait<T: Sendable>(_ operation: String, _ path: StoragePath,
                           _ work: @escaping @Sendable () async throws -> T) throws(StoreFailure) -> T {
        do {
            return try executor.runBlocking(timeout: timeout, work)
        } catch is BlockingExecutor.TimedOut {
            throw StoreFailure(status: 504, message: "the bucket did not answer in \(Int(timeout)) s to \(operation) \(path.relative)")
        } catch let error as S3StoreError {
            if error.reason == .notFound || error.status == 404 { throw StoreFailure(status: 404, message: "not found: \(path.relative)") }
            throw StoreFailure(status: 502, message: "cannot \(operation) \(path.relative) in the bucket: \(error)")
        } catch {
            throw StoreFailure(status: 502, message: "cannot \(operation) \(path.relative) in the bucket: \(error)")
        }
    }
}

/// The dead properties of a bucket's files and folders, read from each object's metadata (one HEAD each, made only
/// when a PROPFIND asks for dead properties). One the bucket cannot give is listed without them.
private struct BucketProperties: DeadPropertyReader {
    let backend: BucketBackend

    func properties(of path: StoragePath) -> [DeadProperties.Entry] {
        let key = BucketBackend.key(path), store = backend.store
        let record = try? backend.wait("read properties of", path) { try await store.propertyRecord(key, forChange: false) }
        return record?.bytes.map(DeadProperties.decode) ?? []
    }

    func close() {}
}

import Foundation
import SkyliftCore
import Synchronization

/// A local file read with positional reads, never through a shared file offset.
///
/// The file's identity (device, inode, size, modification time) is taken at open and checked again after
/// every read: a file modified, truncated or extended while it is read fails with
/// ``BlobStreamError/contentChanged(name:)`` instead of yielding a mix of old and new bytes. Pass the identity
/// of an earlier read as `expectedIdentity` to make sure a resumed upload continues the same version.
public final class FileSource: BlobSource {
    /// The file's path as given.
    public let path: String
    /// When set, opening fails unless the file still has this identity.
    public let expectedIdentity: BlobIdentity?

    private let access: any FileAccess
    private let codes: FileErrorCodes
    private struct Opened { var descriptor: Int32; var status: FileStatus }
    private let opened = Mutex<Opened?>(nil)

    public init(path: String, expectedIdentity: BlobIdentity? = nil) {
        self.path = path
        self.expectedIdentity = expectedIdentity
        (access, codes) = platformFileAccess()
    }

    /// A source for a file URL.
    public convenience init(url: URL, expectedIdentity: BlobIdentity? = nil) {
        self.init(path: url.path, expectedIdentity: expectedIdentity)
    }

    deinit { close() }

    public var name: String { path }

    /// The identity a file with this status has; also what ``BlobInfo/identity`` reports.
    static func identity(of status: FileStatus) -> BlobIdentity {
        BlobIdentity("file:\(status.device):\(status.inode):\(status.size):\(status.modifiedSeconds).\(status.modifiedNanoseconds)")
    }

    /// Opens inline: the completion has run by the time this returns.
    public func open(completion: @escaping @Sendable (Result<BlobInfo, any Error>) -> Void) {
        completion(Result { try openNow() })
    }

    private func openNow() throws -> BlobInfo {
        close()
        let fd: Int32
        switch access.openForReading(path) {
        case let .success(d): fd = d
        case let .failure(f): throw error(for: f)
        }
        let status: FileStatus
        switch access.status(fd) {
        case let .success(s): status = s
        case let .failure(f):
            access.close(fd)
            throw error(for: f)
        }
        if status.isDirectory { access.close(fd); throw BlobStreamError.isDirectory(path: path) }
        if !status.isRegular { access.close(fd); throw BlobStreamError.notRegularFile(path: path) }
        let identity = Self.identity(of: status)
        if let expectedIdentity, expectedIdentity != identity {
            access.close(fd)
            throw BlobStreamError.contentChanged(name: path)
        }
        opened.withLock { $0 = Opened(descriptor: fd, status: status) }
        return BlobInfo(length: status.size, identity: identity, contentType: MediaType.forPath(path))
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard let current = opened.withLock({ $0 }) else { throw BlobStreamError.notOpen(name: path) }
        let n: Int
        switch access.read(current.descriptor, into: buffer, at: offset) {
        case let .success(count): n = count
        case let .failure(f): throw error(for: f)
        }
        // Checked after the read: bytes read while the file still had its opening identity are trustworthy.
        switch access.status(current.descriptor) {
        case let .success(now) where now == current.status: return n
        case .success: throw BlobStreamError.contentChanged(name: path)
        case let .failure(f): throw error(for: f)
        }
    }

    public func close() {
        let fd = opened.withLock { o -> Int32? in
            defer { o = nil }
            return o?.descriptor
        }
        if let fd { access.close(fd) }
    }

    private func error(for failure: FileAccessFailure) -> BlobStreamError {
        switch failure.errno {
        case codes.notFound: .notFound(path: path)
        case codes.permissionDenied: .permissionDenied(path: path)
        case codes.isDirectory: .isDirectory(path: path)
        default: .io(path: path, operation: failure.operation, errno: failure.errno)
        }
    }
}

import Foundation
import SkyliftCore
import SkyliftSystem
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

    private struct Opened { var descriptor: FileDescriptor; var status: FileStatus }
    private let opened = Mutex<Opened?>(nil)

    public init(path: String, expectedIdentity: BlobIdentity? = nil) {
        self.path = path
        self.expectedIdentity = expectedIdentity
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
        let fd: FileDescriptor
        let status: FileStatus
        do {
            // nonBlocking keeps open() from hanging on a FIFO; anything but a regular file is refused below.
            fd = try FileDescriptor.open(path, .readOnly, options: .nonBlocking)
        } catch {
            throw self.error(for: error)
        }
        do { status = try fd.status(path: path) } catch {
            fd.close()
            throw self.error(for: error)
        }
        if status.isDirectory { fd.close(); throw BlobStreamError.isDirectory(path: path) }
        if !status.isRegular { fd.close(); throw BlobStreamError.notRegularFile(path: path) }
        let identity = Self.identity(of: status)
        if let expectedIdentity, expectedIdentity != identity {
            fd.close()
            throw BlobStreamError.contentChanged(name: path)
        }
        opened.withLock { $0 = Opened(descriptor: fd, status: status) }
        return BlobInfo(length: status.size, identity: identity, contentType: MediaType.forPath(path))
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard let current = opened.withLock({ $0 }) else { throw BlobStreamError.notOpen(name: path) }
        do {
            let n = try current.descriptor.read(into: buffer, at: offset, path: path)
            // Checked after the read: bytes read while the file still had its opening identity are trustworthy.
            guard try current.descriptor.status(path: path) == current.status else {
                throw BlobStreamError.contentChanged(name: path)
            }
            return n
        } catch let failure as FileError {
            throw error(for: failure)
        }
    }

    public func close() {
        let fd = opened.withLock { o -> FileDescriptor? in
            defer { o = nil }
            return o?.descriptor
        }
        fd?.close()
    }

    private func error(for failure: FileError) -> BlobStreamError {
        switch failure.errno {
        case .noSuchFile: .notFound(path: path)
        case .permissionDenied: .permissionDenied(path: path)
        case .isDirectory: .isDirectory(path: path)
        default: .io(path: path, operation: failure.call ?? "access", errno: failure.errno ?? .ioError)
        }
    }
}

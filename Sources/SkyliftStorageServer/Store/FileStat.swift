import Foundation
import SkyliftCore
import SkyliftSystem

/// What the server needs to know about a file or directory: kind, size and validators.
struct FileStat: Sendable, Equatable {
    /// `other` is a FIFO, socket or device: never served.
    enum Kind: Sendable { case file, directory, symlink, other }
    var kind: Kind
    var size: Int64
    var inode: UInt64
    /// The file system holding it: with `inode`, which file this is.
    var device: UInt64
    /// The modification time, whole: seconds since 1970 (any Int64) and nanoseconds within the second, so
    /// no two times a file system can hold look alike.
    var mtime: FileTime

    var isDirectory: Bool { kind == .directory }

    /// Only regular files and folders are ever served.
    var isServed: Bool { kind == .file || kind == .directory }

    /// Strong validator: changes whenever the file is replaced (inode), resized or rewritten (mtime in ns).
    var etag: String {
        "\"\(String(inode, radix: 16))-\(String(size, radix: 16))-\(mtime.validatorText)\""
    }

    /// Whole seconds, as HTTP dates carry them.
    var lastModified: Date { Date(timeIntervalSince1970: TimeInterval(mtime.seconds)) }
}

extension FileStat {
    init(_ status: FileStatus) {
        switch status.kind {
        case .directory: kind = .directory
        case .regular: kind = .file
        case .symlink: kind = .symlink
        case .other: kind = .other
        }
        size = status.size
        inode = status.inode
        device = status.device
        mtime = FileTime(seconds: status.modifiedSeconds, nanoseconds: status.modifiedNanoseconds)
    }

    init?(path: String) {
        guard let status = try? FileStatus(path) else { return nil }
        self.init(status)
    }

    /// The entry `name` in the open folder `folder` itself: a symlink is described, never followed.
    /// Nil when there is none or it cannot be read; ``status(at:_:)`` says why.
    init?(at folder: FileDescriptor, _ name: String) {
        guard let status = try? folder.status(of: name) else { return nil }
        self.init(status)
    }

    /// The entry `name` in the open folder `folder`, or why it cannot be described.
    static func status(at folder: FileDescriptor, _ name: String) -> Result<FileStat, FileError> {
        do { return .success(FileStat(try folder.status(of: name))) } catch { return .failure(error) }
    }

    init?(fd: FileDescriptor) {
        guard let status = try? fd.status(path: "") else { return nil }
        self.init(status)
    }
}

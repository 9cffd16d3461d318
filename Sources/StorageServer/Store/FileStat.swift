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
        mtime = FileTime(seconds: status.modifiedSeconds, nanoseconds: status.modifiedNanoseconds)
    }

    init?(path: String) {
        guard let status = try? FileStatus(path) else { return nil }
        self.init(status)
    }

    /// The entry `name` in the open folder `folder` itself: a symlink is described, never followed.
    /// On nil, `errno` says why.
    init?(at folder: Int32, _ name: String) {
        do {
            self.init(try FileStatus(name, in: FileDescriptor(rawValue: folder), followLinks: false))
        } catch {
            // Callers read errno to tell a missing entry from a failure; keep it what stat set.
            errno = error.errno?.rawValue ?? EIO
            return nil
        }
    }

    init?(fd: Int32) {
        guard let status = try? FileDescriptor(rawValue: fd).status(path: "") else { return nil }
        self.init(status)
    }
}

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
        // Every GET and HEAD carries one: written into one buffer (hex of at most 16 digits each) instead of
        // three converted pieces interpolated, except for the rare times before 1970 or past 2262.
        guard size >= 0, let ns = mtime.totalNanoseconds, ns >= 0 else {
            return "\"\(String(inode, radix: 16))-\(String(size, radix: 16))-\(mtime.validatorText)\""
        }
        return String(unsafeUninitializedCapacity: 3 * 16 + 4) { out in
            var at = 0
            func hex(_ value: UInt64) {
                var shift = max(0, (63 - value.leadingZeroBitCount) / 4 * 4)
                while shift >= 0 {
                    let digit = UInt8((value >> UInt64(shift)) & 0xF)
                    out[at] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                    at += 1
                    shift -= 4
                }
            }
            out[at] = UInt8(ascii: "\""); at += 1
            hex(inode); out[at] = UInt8(ascii: "-"); at += 1
            hex(UInt64(size)); out[at] = UInt8(ascii: "-"); at += 1
            hex(UInt64(ns)); out[at] = UInt8(ascii: "\""); at += 1
            return at
        }
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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One name in a folder, with the type `readdir` reported (nil when the file system did not say).
public struct FolderEntry: Sendable, Equatable {
    public var name: String
    public var kind: FileStatus.Kind?
}

// Folders: listing, links, names relative to an open folder, and making renames durable.
extension FileDescriptor {
    /// The entries of this open folder ("." and ".." left out). Reads through a descriptor of its own, so
    /// this one's offset is untouched and it stays open.
    public func entries(path: String) throws(FileError) -> [FolderEntry] {
        let copy = try FileDescriptor.open(".", .readOnly, options: .directory, in: self, label: path)
        guard let dir = fdopendir(copy.rawValue) else {
            let failure = FileError.last("opendir", path)
            copy.close()
            throw failure
        }
        defer { closedir(dir) }
        var out: [FolderEntry] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            out.append(FolderEntry(name: name, kind: Self.kind(ofDirentType: Int32(entry.pointee.d_type))))
        }
        return out
    }

    private static func kind(ofDirentType type: Int32) -> FileStatus.Kind? {
        switch type {
        case Int32(DT_REG): .regular
        case Int32(DT_DIR): .directory
        case Int32(DT_LNK): .symlink
        case Int32(DT_UNKNOWN): nil
        default: .other
        }
    }

    /// The text of the symbolic link `name` in this open folder; nil when it is not a link or unreadable.
    public func linkTarget(_ name: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = buffer.withUnsafeMutableBytes { readlinkat(rawValue, name, $0.baseAddress!, $0.count - 1) }
        guard n > 0, n < buffer.count - 1 else { return nil }
        return String(decoding: buffer[0 ..< n], as: UTF8.self)
    }

    /// Frees the disk blocks of a range, keeping the file's length; false where the OS cannot.
    @discardableResult
    public func punchHole(offset: Int64, length: Int64) -> Bool {
        SkyliftSystem.punchHole(rawValue, offset: offset, length: length)
    }
}

/// Operations on folder entries by path: the steps that make a replacement atomic and durable.
public enum Directory {
    /// Renames `from` to `to`, replacing `to` atomically.
    public static func rename(_ from: String, to: String) throws(FileError) {
        guard systemRename(from, to) == 0 else { throw FileError.last("rename", to) }
    }

    /// Removes the name `path` (a link itself, never its target); missing is fine.
    public static func remove(_ path: String) { _ = unlink(path) }

    /// Makes renames and creations inside the folder `path` durable (`fsync` of the folder). Best effort:
    /// a file system that cannot sync folders has nothing more to offer.
    public static func sync(_ path: String) {
        guard let fd = try? FileDescriptor.open(path.isEmpty ? "." : path, .readOnly, options: .directory) else { return }
        try? fd.sync(path: path)
        fd.close()
    }
}

extension FileDescriptor {
    /// Takes an exclusive advisory lock (`flock`), waiting for it (repeated on `EINTR`); it lasts until the
    /// descriptor is closed.
    public func lockExclusive(path: String) throws(FileError) {
        while flock(rawValue, LOCK_EX) != 0 {
            if errno != EINTR { throw FileError.last("flock", path) }
        }
    }

    /// Takes an exclusive advisory lock (`flock`) without waiting; it lasts until the descriptor is closed.
    /// A lock held elsewhere fails with an errno whose ``Errno/isWouldBlock`` is true.
    public func tryLockExclusive(path: String) throws(FileError) {
        guard flock(rawValue, LOCK_EX | LOCK_NB) == 0 else { throw FileError.last("flock", path) }
    }
}

import SkyliftCore
import SkyliftSystem

/// `FileSystemAccess` over SkyliftSystem: `lstat` for single files, and for a listing one `fstatat` per
/// file relative to the open folder, so a 100,000-file crawl costs little more than the kernel's own work.
struct PosixFileSystem: FileSystemAccess {
    /// Absolute path of the watched root, without a trailing slash.
    let rootPath: String

    func absolute(_ relativePath: String) -> String {
        relativePath.isEmpty ? rootPath : rootPath + "/" + relativePath
    }

    func snapshot(of relativePath: String) -> FileSnapshot? {
        guard let status = try? FileStatus(absolute(relativePath), followLinks: false), status.isRegular else { return nil }
        return Self.snapshot(relativePath, status)
    }

    func isDirectory(_ relativePath: String) -> Bool {
        (try? FileStatus(absolute(relativePath), followLinks: false))?.isDirectory ?? false
    }

    func entries(of relativePath: String) throws(ListingFailure) -> [DirectoryEntry] {
        let path = absolute(relativePath)
        let folder: FileDescriptor
        let listed: [FolderEntry]
        do {
            folder = try FileDescriptor.open(path, .readOnly, options: [.directory, .noFollow])
        } catch {
            throw Self.failure(error.errno ?? .ioError)
        }
        defer { folder.close() }
        do { listed = try folder.entries(path: path) } catch { throw Self.failure(error.errno ?? .ioError) }
        let prefix = relativePath.isEmpty ? "" : relativePath + "/"
        return listed.compactMap { entry in
            switch entry.kind {
            case .directory: return DirectoryEntry(name: entry.name, kind: .directory)
            case .symlink, .other: return DirectoryEntry(name: entry.name, kind: .other)
            case .regular, nil:
                // Checked relative to the open folder; a file that vanished meanwhile is left out.
                guard let status = try? FileStatus(entry.name, in: folder, followLinks: false) else { return nil }
                switch status.kind {
                case .regular: return DirectoryEntry(name: entry.name, kind: .file(Self.snapshot(prefix + entry.name, status)))
                case .directory: return DirectoryEntry(name: entry.name, kind: .directory)
                case .symlink, .other: return DirectoryEntry(name: entry.name, kind: .other)
                }
            }
        }
    }

    static func snapshot(_ path: String, _ status: FileStatus) -> FileSnapshot {
        let mtime = Int64.nanoseconds(seconds: status.modifiedSeconds, nanoseconds: status.modifiedNanoseconds)
        return FileSnapshot(path: path, size: status.size, mtimeNanoseconds: mtime, inode: status.inode)
    }

    static func failure(_ code: Errno) -> ListingFailure {
        ListingFailure(errno: code, reason: "\(code) (errno \(code.rawValue))")
    }
}

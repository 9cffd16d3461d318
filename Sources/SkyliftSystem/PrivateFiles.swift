#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files only their owner may read: secrets (tokens) and state (resume records, queues, caches).
///
/// Everything is created with its final mode — files 0600 with `O_CREAT|O_EXCL`, folders 0700 — so there
/// is no moment when another user could open it, whatever the umask. Replacing goes through ``AtomicFile``.
public enum PrivateFiles {
    public static let fileMode: mode_t = 0o600
    public static let folderMode: mode_t = 0o700

    /// Creates `path` and any missing parents; every folder created gets mode 0700 (existing ones are left
    /// as they are: they may be shared on purpose).
    public static func createDirectory(_ path: String) throws(FileError) {
        var missing: [String] = []
        var current = path
        while !current.isEmpty && current != "/" && current != "." && !isDirectory(current) {
            missing.append(current)
            current = AtomicFile.folder(of: current)
        }
        for folder in missing.reversed() {
            if mkdir(folder, folderMode) != 0 && errno != EEXIST { throw FileError.last("mkdir", folder) }
        }
    }

    /// Creates a new, empty file with mode 0600; an existing file is left alone. For files another library
    /// opens afterwards (SQLite copies the database's mode to its -wal and -shm files).
    public static func createEmpty(_ path: String) throws(FileError) {
        do {
            let fd = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusive], permissions: fileMode)
            fd.close()
        } catch where error.errno == .fileExists {
            return
        }
    }

    /// The contents of a secret file (`--token-file`, `--header-file`), at most `limit` bytes. Refuses a file
    /// that its group or other users may read or write, the way ssh refuses such a private key: the secret
    /// in it is no longer one.
    public static func readSecret(_ path: String, limit: Int = 64 << 10) throws(FileError) -> [UInt8] {
        let fd = try FileDescriptor.open(path, .readOnly)
        defer { fd.close() }
        let status = try fd.status(path: path)
        guard status.isRegular else { throw FileError(path: path, reason: "not a regular file") }
        let mode = status.permissions & 0o777
        guard mode & 0o077 == 0 else {
            throw FileError(path: path, reason: "other users can access it (mode \(String(mode, radix: 8))); run 'chmod 600 \(path)'")
        }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < bytes.count {
            let n = try bytes.withUnsafeMutableBytes { raw in
                Result { () throws(FileError) in try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[count...]), path: path) }
            }.get()
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { throw FileError(path: path, reason: "larger than \(limit) bytes") }
        return Array(bytes[0 ..< count])
    }

    private static func isDirectory(_ path: String) -> Bool {
        (try? FileStatus(path))?.isDirectory ?? false
    }
}

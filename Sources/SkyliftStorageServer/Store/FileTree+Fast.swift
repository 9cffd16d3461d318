import SkyliftSystem

extension FileTree {
    /// The regular file at `path` opened for reading with its status, when the path is plain: every folder on the
    /// way a real folder and the file itself a regular file, no link anywhere. Nil for anything else (a link, a
    /// folder, something missing or special), which the caller then walks with ``entry(_:)`` under the full rule.
    ///
    /// Each folder is opened `O_DIRECTORY|O_NOFOLLOW` and the file `O_NOFOLLOW|O_NONBLOCK` straight away, without the
    /// `lstat` the full walk makes of every step first: a link fails to open (`ELOOP`), and what is opened is served
    /// only if `fstat` says regular file, so the rule holds with one system call less per step (a small GET's most
    /// common case). Needs the root held open (``RootFolder``). `status` is the file's whole `fstat`.
    static func openServedFile(_ path: StoragePath) -> (fd: FileDescriptor, stat: FileStat, status: FileStatus)? {
        guard let root = path.rootFolder, let last = path.segments.last else { return nil }
        for name in path.segments where name.isEmpty || name == "." || name == ".." || name.hasPrefix(PathResolver.hiddenPrefix) {
            return nil
        }
        var folder = root.fd
        defer { if folder != root.fd { folder.close() } }
        for name in path.segments.dropLast() {
            guard let next = try? folder.openFolder(name) else { return nil }
            if folder != root.fd { folder.close() }
            folder = next
        }
        guard let (fd, status) = try? folder.openRegularFileWithStatus(last) else { return nil }
        return (fd, FileStat(status), status)
    }
}

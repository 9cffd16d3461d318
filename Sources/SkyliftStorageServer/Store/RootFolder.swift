import SkyliftSystem

/// The served root, held open for the life of the store: every walk (``FileTree``) starts at this descriptor
/// instead of opening the root by path and closing it again, two of the ten system calls of a small GET.
///
/// The root is resolved once, at start: a root folder renamed or replaced while the server runs keeps being
/// walked as the folder that was opened, as a mount point would.
final class RootFolder: Sendable {
    let fd: FileDescriptor

    /// Opens `path` (the root's real path, "" for "/"); nil when it is not an openable folder.
    init?(path: String) {
        guard let fd = try? FileDescriptor.open(path.isEmpty ? "/" : path, .readOnly, options: .directory) else { return nil }
        self.fd = fd
    }

    deinit { fd.close() }
}

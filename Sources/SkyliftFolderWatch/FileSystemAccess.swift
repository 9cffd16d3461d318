import SkyliftSystem

/// One entry of a folder listing.
struct DirectoryEntry: Sendable {
    enum Kind: Sendable {
        case file(FileSnapshot)
        case directory
        /// Symlinks, sockets, devices: never followed or reported.
        case other
    }

    var name: String
    var kind: Kind
}

/// Why a folder could not be listed.
struct ListingFailure: Error, Sendable {
    var errno: Errno
    var reason: String
}

/// File checks and folder listings relative to the watched root. The POSIX implementation is the real
/// one; tests running as root wrap it to make a folder unreadable, since root ignores permissions.
protocol FileSystemAccess: Sendable {
    /// A fresh check of a regular file, or nil if it is missing or not a regular file.
    func snapshot(of relativePath: String) -> FileSnapshot?
    /// The entries of a folder, files checked as they are listed.
    func entries(of relativePath: String) throws(ListingFailure) -> [DirectoryEntry]
    /// Whether `relativePath` is a folder (not following symlinks).
    func isDirectory(_ relativePath: String) -> Bool
}

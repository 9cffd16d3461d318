import Foundation
import SkyliftSystem

/// An entry under the root reached by walking open folder descriptors (see ``FileTree``): the open folder
/// that holds it and its name there. What is done to it goes through `*at` calls on that descriptor, so a
/// symlink or a concurrent rename of a folder above it cannot redirect the call outside the root.
final class Location {
    /// The open folder holding the entry; closed with the location unless it is the store's ``RootFolder``.
    let folder: FileDescriptor
    /// The root held open by the store, kept alive while the location uses its descriptor; nil when
    /// `folder` belongs to the location.
    private let sharedRoot: RootFolder?
    /// The entry's name in `folder`; "." when the entry is that folder itself (the root, or a link's target).
    let name: String
    /// Where the entry really is: its segments below the root with every link resolved. Two locations are
    /// compared by these to tell whether one lies inside the other, whatever links the request went through.
    let physical: [String]
    /// What the walk that found the entry saw of it (not followed), so the caller need not ask again.
    let seen: FileStat?

    init(folder: FileDescriptor, name: String, physical: [String], seen: FileStat? = nil, sharedRoot: RootFolder? = nil) {
        self.folder = folder
        self.sharedRoot = sharedRoot
        self.name = name
        self.physical = physical
        self.seen = seen
    }

    deinit { if sharedRoot?.fd != folder { folder.close() } }

    /// The entry itself (a link is described, not followed); nil when nothing is there.
    func stat() -> FileStat? { FileStat(at: folder, name) }

    /// True when `self` is `other` or lies inside it.
    func isWithin(_ other: Location) -> Bool { physical.starts(with: other.physical) }

    /// Opens a regular file for reading (see ``FileSystem/openRegularFile(in:_:)``).
    func openFile() throws -> FileDescriptor { try FileSystem.openRegularFile(in: folder, name) }

    /// ``openFile()`` with the open file's metadata.
    func openFileWithStat() throws -> (fd: FileDescriptor, stat: FileStat) { try FileSystem.openRegularFileWithStat(in: folder, name) }

    /// Opens the entry as a folder, refusing a link.
    func openFolder() throws -> FileDescriptor { try FileSystem.openFolder(in: folder, name) }
}

extension Location {
    /// Opens the entry, a regular file or a folder, read-only, to read or set its extended attributes
    /// (which need no write access to the descriptor). A link, FIFO or device is refused.
    func openEntry() throws(FileError) -> FileDescriptor {
        let fd = try FileDescriptor.open(name, .readOnly, options: [.noFollow, .nonBlocking], in: folder)
        guard let status = try? fd.status(path: name), status.kind == .regular || status.kind == .directory else {
            fd.close()
            throw FileError(call: "open", path: name, errno: .noSuchFile)
        }
        return fd
    }
}

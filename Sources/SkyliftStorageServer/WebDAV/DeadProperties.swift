import Foundation
import SkyliftSystem
import Synchronization

/// Dead properties (set by clients with PROPPATCH), kept in an extended attribute of the resource itself
/// (`user.skylift.props`, JSON), beside its digest record.
///
/// Why on the inode: a rename (MOVE, a COPY's temp renamed into place) carries them and an unlink drops them
/// in the same system call that moves or removes the file, so no crash can leave a file without its
/// properties or hand a deleted file's properties to the next file of that name. Stores from before kept
/// them in `.skylift-props.<name>` sidecar files; ``PropertyMigration`` moves those onto their files once.
final class DeadProperties: Sendable {
    static let attribute = "user.skylift.props"
    /// Most bytes of stored property XML per resource. Linux caps one attribute at 64 KiB; the JSON around
    /// the XML (names, escapes) takes the rest. Smaller file systems (ext4 keeps all of a file's attributes
    /// in one 4 KiB block) refuse earlier, and PROPPATCH answers 507 then, as for this cap.
    static let maxBytesPerResource = 48 << 10
    /// Largest encoded set read back: the attribute limit itself.
    static let maxEncodedBytes = 64 << 10
    /// Serialises read-modify-write of a set, so concurrent PROPPATCHes never lose each other's changes.
    private let updating = Mutex(())

    /// One stored property: its name and its whole element as stand-alone XML.
    struct Entry: Codable, Sendable {
        var property: PropertyName
        var xml: String
    }

    /// The stored set of the resource at `path` (of a link's target); empty when there is none.
    func load(_ path: StoragePath) -> [Entry] {
        guard let entry = FileTree.entry(path), let fd = try? entry.target.openEntry() else { return [] }
        defer { fd.close() }
        return Self.load(fd: fd)
    }

    /// The stored set of the file or folder `name` in the open folder `folder`; nil when `name` is not a file
    /// or folder itself (a link: its target is found through ``load(_:)``).
    func load(in folder: FileDescriptor, _ name: String) -> [Entry]? {
        guard let fd = try? FileDescriptor.open(name, .readOnly, options: [.noFollow, .nonBlocking], in: folder) else { return nil }
        defer { fd.close() }
        return Self.load(fd: fd)
    }

    static func load(fd: FileDescriptor) -> [Entry] {
        guard let bytes = encoded(fd: fd) else { return [] }
        return decode(bytes)
    }

    static func decode(_ bytes: [UInt8]) -> [Entry] { (try? JSONDecoder().decode([Entry].self, from: Data(bytes))) ?? [] }

    /// The attribute's raw value; nil when there is none (or it cannot be read).
    static func encoded(fd: FileDescriptor) -> [UInt8]? {
        (try? fd.attribute(attribute, limit: maxEncodedBytes, path: "")) ?? nil
    }

    /// Loads, lets `change` edit, and stores the set under the update lock, then syncs the resource so the
    /// new set survives a crash; `change` returns false to store nothing.
    func update(_ path: StoragePath, _ change: (inout [Entry]) -> Bool) throws {
        guard let entry = FileTree.entry(path) else {
            throw FileSystemError(operation: "open", path: path.relative, errno: .noSuchFile)
        }
        let fd: FileDescriptor
        do throws(FileError) { fd = try entry.target.openEntry() } catch { throw FileSystemError(error) }
        defer { fd.close() }
        try updating.withLock { _ in
            var entries = Self.load(fd: fd)
            guard change(&entries) else { return }
            do {
                if entries.isEmpty {
                    try fd.removeAttribute(Self.attribute, path: path.relative)
                } else {
                    try fd.setAttribute(Self.attribute, Array(try JSONEncoder().encode(entries)), path: path.relative)
                }
                try fd.sync(path: path.relative)
            } catch let error as FileError { throw FileSystemError(error) }
        }
    }

    /// Gives the file or folder `to` the properties of `from` (a COPY); none when `from` has none.
    static func copy(from: FileDescriptor, to: FileDescriptor, path: String) throws {
        guard let bytes = encoded(fd: from) else { return }
        do { try to.setAttribute(attribute, bytes, path: path) } catch { throw FileSystemError(error) }
    }
}

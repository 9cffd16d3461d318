import Foundation
import SkyliftSystem

/// How `scrub` walks a store, which anyone with write access to the tree can shape: through folder
/// descriptors (`openat(O_DIRECTORY|O_NOFOLLOW)`, `fstatat(AT_SYMLINK_NOFOLLOW)`), so a link is never
/// followed; never onto another file system (`st_dev`) or, where the kernel numbers mounts (Linux `statx`),
/// another mount of the same one (a bind mount, which could also loop back into the tree); never deeper than
/// ``maxDepth`` folders. Everything not entered or not checked is reported as a ``ScrubReport/Skip``, never
/// passed over in silence; the server's hidden `.skylift-*` files are its own and left out.
struct StoreWalk {
    /// A folder whose path below the root has this many names is not entered, so no checked file lies deeper.
    /// Far deeper than photo, media or backup trees get; it bounds the recursion and the folder descriptors
    /// held open at once (one per level).
    static let maxDepth = 128

    /// A regular file the walk found: its folder, name, path below the root, and what `fstatat` said.
    struct File {
        let folder: FileDescriptor
        let name: String
        let path: String
        let status: FileStatus
    }

    private let root: FileDescriptor
    private let device: UInt64
    private let mount: UInt64?

    /// A walk below the open folder `root` (its own path `path`, for errors).
    init(root: FileDescriptor, path: String) throws(FileError) {
        self.root = root
        device = try root.status(path: path).device
        mount = root.mountID()
    }

    /// What a walk did not check: entries it did not enter or visit, and what could not be listed or stat'ed.
    struct Unchecked {
        var skipped: [ScrubReport.Skip] = []
        /// `unreadable` findings.
        var unreadable: [ScrubReport.Finding] = []
    }

    /// Calls `visit` with every regular file, sorted by name, depth first; returns what it did not check.
    func run(_ visit: (File) -> Void) -> Unchecked {
        var result = Unchecked()
        walk(root, "", depth: 0, visit, into: &result)
        return result
    }

    /// Why the open file `fd` (with status `status`) lies outside the walk's file system or mount; nil when
    /// it lies inside. Asked of every folder before it is entered and of every file once opened.
    func outside(_ fd: FileDescriptor, _ status: FileStatus) -> ScrubReport.Skip.Reason? {
        if status.device != device { return .otherFileSystem }
        if let mount, let other = fd.mountID(), other != mount { return .otherMount }
        return nil
    }

    private func walk(_ folder: FileDescriptor, _ prefix: String, depth: Int, _ visit: (File) -> Void,
                      into result: inout Unchecked) {
        let entries: [FolderEntry]
        do { entries = try folder.entries(path: prefix) } catch {
            result.unreadable.append(.init(path: prefix.isEmpty ? "." : prefix, kind: .unreadable, detail: "folder: \(error)"))
            return
        }
        for entry in entries.sorted(by: { $0.name < $1.name }) where !entry.name.hasPrefix(PathResolver.hiddenPrefix) {
            let relative = prefix.isEmpty ? entry.name : prefix + "/" + entry.name
            let status: FileStatus
            do { status = try FileStatus(entry.name, in: folder, followLinks: false) } catch {
                // Gone since the listing: nothing left to check.
                if error.errno != .noSuchFile { result.unreadable.append(.init(path: relative, kind: .unreadable, detail: "\(error)")) }
                continue
            }
            switch status.kind {
            case .regular:
                // A file on another device is a mount point itself (a bind-mounted file); checked once opened too.
                if status.device != device {
                    result.skipped.append(.init(path: relative, reason: .otherFileSystem))
                } else {
                    visit(File(folder: folder, name: entry.name, path: relative, status: status))
                }
            case .symlink:
                result.skipped.append(.init(path: relative, reason: .link))
            case .other:
                result.skipped.append(.init(path: relative, reason: .special))
            case .directory:
                enter(folder, entry.name, relative, depth: depth + 1, visit, into: &result)
            }
        }
    }

    private func enter(_ parent: FileDescriptor, _ name: String, _ relative: String, depth: Int, _ visit: (File) -> Void,
                       into result: inout Unchecked) {
        guard depth < Self.maxDepth else {
            result.skipped.append(.init(path: relative, reason: .tooDeep, detail: "folders deeper than \(Self.maxDepth) are not entered"))
            return
        }
        let child: FileDescriptor
        do { child = try FileDescriptor.open(name, .readOnly, options: [.directory, .noFollow], in: parent, label: relative) } catch {
            if error.errno != .noSuchFile { result.unreadable.append(.init(path: relative, kind: .unreadable, detail: "folder: \(error)")) }
            return
        }
        defer { child.close() }
        // Checked on the open folder, not the name: what is entered is what was checked.
        guard let status = try? child.status(path: relative) else { return }
        if let reason = outside(child, status) {
            result.skipped.append(.init(path: relative, reason: reason))
            return
        }
        walk(child, relative, depth: depth, visit, into: &result)
    }
}

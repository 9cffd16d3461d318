import Foundation
import SkyliftSystem

/// Finds request paths under the root by walking descriptors, one `openat` per folder, instead of handing
/// path strings to the kernel.
///
/// The rule for symlinks, the same for every method: a link is followed only while every step of it stays
/// inside the root (`..` never climbs above it, an absolute target must lie under the root's real path) and
/// it ends at a regular file or a folder. Such a link reads as its target (GET, HEAD, PROPFIND, listings,
/// the source of COPY) but is an entry of its own wherever something is changed: DELETE and MOVE act on the
/// link itself, and COPY, DELETE and MOVE never follow a link found below the request path. Any other link
/// (leading out of the root or into the server's hidden files, dangling, looping) and any FIFO, socket or
/// device is invisible: 404 when named or passed through, left out of listings and PROPFIND, not copied.
enum FileTree {
    /// Why a walk stopped.
    enum Failure: Error {
        /// A folder on the way does not exist or is a file.
        case missing
        /// A link on the way leaves the root, loops, or a folder could not be opened.
        case refused
    }

    /// Links followed in one walk before it counts as a loop (Linux's own limit).
    static let maxLinks = 40

    /// A served entry: the request's own name (`own`, never followed) and what reads see (`target`, the
    /// link's target for an inside link, otherwise `own`) with its metadata.
    struct Entry {
        let own: Location
        let target: Location
        let stat: FileStat
        var isLink: Bool { own !== target }
    }

    /// The entry at `path`; nil when nothing is there or it is invisible (see the rule above).
    static func entry(_ path: StoragePath) -> Entry? {
        guard case let .success(own) = locate(path, followLast: false), let ownStat = own.seen ?? own.stat() else { return nil }
        guard ownStat.kind == .symlink else { return ownStat.isServed ? Entry(own: own, target: own, stat: ownStat) : nil }
        guard case let .success(target) = locate(path, followLast: true), let stat = target.stat(), stat.isServed
        else { return nil }
        return Entry(own: own, target: target, stat: stat)
    }

    /// The served members of the folder `entry` (at `path`): hidden server files, special files and
    /// invisible links left out; an inside link listed with its target's metadata. Sorted by name.
    static func members(of entry: Entry, at path: StoragePath) -> [(path: StoragePath, stat: FileStat)] {
        guard let fd = try? entry.target.openFolder() else { return [] }
        defer { fd.close() }
        let names = (FileSystem.names(in: fd) ?? []).filter { !$0.hasPrefix(PathResolver.hiddenPrefix) }.sorted()
        return names.compactMap { name in
            let child = path.appending(name)
            guard let stat = FileStat(at: fd, name) else { return nil }
            if stat.kind == .symlink { return Self.entry(child).map { (child, $0.stat) } }
            return stat.isServed ? (child, stat) : nil
        }
    }

    /// Walks `path` from the root. Links before the last segment are followed (within the rule above); the
    /// last one too when `followLast`. A missing last entry is not a failure: the location names where it
    /// would be, in its existing parent folder.
    static func locate(_ path: StoragePath, followLast: Bool) -> Result<Location, Failure> {
        let shared = path.rootFolder
        guard let rootFD = shared?.fd
            ?? (try? FileDescriptor.open(path.rootPath.isEmpty ? "/" : path.rootPath, .readOnly, options: .directory))
        else { return .failure(.missing) }
        var folders: [(fd: FileDescriptor, name: String)] = [(rootFD, "")]
        var kept: FileDescriptor?
        defer { for f in folders where f.fd != kept && f.fd != shared?.fd { f.fd.close() } }
        func located(_ name: String, seen: FileStat? = nil) -> Location {
            let folder = folders[folders.count - 1].fd
            kept = folder
            return Location(folder: folder, name: name, physical: folders.dropFirst().map(\.name) + (name == "." ? [] : [name]),
                            seen: seen, sharedRoot: shared)
        }
        var pending = Array(path.segments.reversed())
        var links = 0
        while let name = pending.popLast() {
            if name.isEmpty || name == "." { continue }
            // The server's own files (upload data, property sidecars) are not reachable through a link either.
            if name.hasPrefix(PathResolver.hiddenPrefix) { return .failure(.refused) }
            if name == ".." {
                guard folders.count > 1 else { return .failure(.refused) }
                folders.removeLast().fd.close()
                continue
            }
            let isLast = pending.isEmpty
            let top = folders[folders.count - 1].fd
            let stat: FileStat
            switch FileStat.status(at: top, name) {
            case let .success(s): stat = s
            case let .failure(error):
                if isLast && error.errno == .noSuchFile { return .success(located(name)) }
                return .failure(error.errno == .noSuchFile || error.errno == .notDirectory ? .missing : .refused)
            }
            if stat.kind == .symlink && (!isLast || followLast) {
                links += 1
                guard links <= maxLinks, let text = top.linkTarget(name) else { return .failure(.refused) }
                var target = Substring(text)
                if text.hasPrefix("/") {
                    // An absolute target counts only below the root's real path; the walk restarts at the root.
                    guard text == path.rootPath || text.hasPrefix(path.rootPath + "/") || path.rootPath.isEmpty else {
                        return .failure(.refused)
                    }
                    target = target.dropFirst(path.rootPath.count)
                    for f in folders.dropFirst() { f.fd.close() }
                    folders.removeSubrange(1...)
                }
                // Split on the byte: a Character split keeps "/" inside a name when a combining mark follows
                // it, and such a name would make openat walk (and follow links) through its folder part.
                pending += target.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }.reversed()
                continue
            }
            if isLast { return .success(located(name, seen: stat)) }
            guard stat.kind == .directory else { return .failure(.missing) }
            guard let fd = try? FileSystem.openFolder(in: top, name) else { return .failure(.refused) }
            folders.append((fd, name))
        }
        return .success(located("."))
    }
}

import Foundation
import SkyliftSystem

/// Moves dead properties from the sidecar files of older stores (`.skylift-props.<name>` beside each
/// resource, `.skylift-props-root` for the root) into their resources' extended attributes, once per store,
/// before the server answers its first request.
///
/// Each step is safe to repeat after a crash: a property set is written to its resource and synced before
/// its sidecar goes, a resource that already holds a set keeps it (it is newer than any sidecar), and a
/// sidecar whose resource is gone is dropped, so it can never pass to a later file of that name. The store
/// is marked done (`user.skylift.layout` on the root) only after the whole walk.
struct PropertyMigration {
    static let marker = "user.skylift.layout"
    static let layout: [UInt8] = Array("2".utf8)
    static let sidecarPrefix = PathResolver.hiddenPrefix + "props."
    static let rootSidecar = PathResolver.hiddenPrefix + "props-root"

    let rootPath: String

    /// Runs the migration unless the store is marked migrated or keeps no extended attributes (then the
    /// sidecars stay, unread). Returns how many sidecars were moved onto their resources. A set its resource
    /// cannot hold (too large for the file system, or no space) keeps its sidecar, and the store is not
    /// marked, so the next start tries again.
    @discardableResult
    func run() -> Int {
        guard let root = try? FileDescriptor.open(rootPath.isEmpty ? "/" : rootPath, .readOnly, options: .directory) else { return 0 }
        defer { root.close() }
        if let mark = try? root.attribute(Self.marker, limit: 16, path: rootPath), mark == Self.layout { return 0 }
        var tally = Tally()
        migrate(folder: root, path: rootPath, isRoot: true, depth: 0, tally: &tally)
        if tally.kept == 0 {
            try? root.setAttribute(Self.marker, Self.layout, path: rootPath)
            try? root.sync(path: rootPath)
        }
        return tally.moved
    }

    private struct Tally {
        var moved = 0
        var kept = 0
    }

    private enum Outcome { case moved, dropped, kept }

    private func migrate(folder: FileDescriptor, path: String, isRoot: Bool, depth: Int, tally: inout Tally) {
        guard depth <= FileSystem.maxTreeDepth, let entries = try? folder.entries(path: path) else { return }
        var changed = false
        for entry in entries {
            let name = entry.name
            let owner: String? = name.hasPrefix(Self.sidecarPrefix) ? String(name.dropFirst(Self.sidecarPrefix.count))
                : (isRoot && name == Self.rootSidecar ? "." : nil)
            if let owner {
                switch adopt(sidecar: name, owner: owner, in: folder) {
                case .moved: tally.moved += 1
                case .kept: tally.kept += 1
                case .dropped: break
                }
                changed = true
            } else if !name.hasPrefix(PathResolver.hiddenPrefix),
                      let status = try? FileStatus(name, in: folder, followLinks: false), status.isDirectory,
                      let child = try? folder.openFolder(name) {
                migrate(folder: child, path: path + "/" + name, isRoot: false, depth: depth + 1, tally: &tally)
                child.close()
            }
        }
        if changed { try? folder.sync(path: path) }
    }

    /// Puts the sidecar's set on `owner` unless it holds one already, then removes the sidecar; a set that
    /// cannot be put there keeps its sidecar.
    private func adopt(sidecar: String, owner: String, in folder: FileDescriptor) -> Outcome {
        let outcome = transfer(sidecar: sidecar, owner: owner, in: folder)
        if outcome != .kept { try? folder.removeEntry(sidecar) }
        return outcome
    }

    private func transfer(sidecar: String, owner: String, in folder: FileDescriptor) -> Outcome {
        guard let target = try? FileDescriptor.open(owner, .readOnly, options: [.noFollow, .nonBlocking], in: folder) else { return .dropped }
        defer { target.close() }
        guard let status = try? target.status(path: owner), status.isRegular || status.isDirectory,
              DeadProperties.encoded(fd: target) == nil,
              let bytes = readSidecar(sidecar, in: folder), !DeadProperties.decode(bytes).isEmpty else { return .dropped }
        do {
            try target.setAttribute(DeadProperties.attribute, bytes, path: owner)
            try target.sync(path: owner)
            return .moved
        } catch { return .kept }
    }
    /// The sidecar's bytes when it is a regular file no larger than an attribute may be.
    private func readSidecar(_ name: String, in folder: FileDescriptor) -> [UInt8]? {
        guard let fd = try? FileDescriptor.open(name, .readOnly, options: [.noFollow, .nonBlocking], in: folder) else { return nil }
        defer { fd.close() }
        guard let status = try? fd.status(path: name), status.isRegular, status.size <= Int64(DeadProperties.maxEncodedBytes) else { return nil }
        var bytes: [UInt8] = []
        guard (try? DigestStore.read(fd, path: name, chunk: 64 << 10, into: { bytes += $0 })) != nil else { return nil }
        return bytes.count <= DeadProperties.maxEncodedBytes ? bytes : nil
    }
}

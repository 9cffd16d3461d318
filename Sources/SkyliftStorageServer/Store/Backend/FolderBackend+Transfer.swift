import Foundation
import SkyliftSystem

/// COPY and MOVE on the folder store, on descriptors (see ``FileTree``): the source is what GET would serve (an
/// inside link reads as its target for COPY; MOVE renames the link itself), nothing below it is followed, and
/// links found inside a copied folder are left out of the copy. Dead properties and digest records travel along
/// (extended attributes).
extension FolderBackend {
    func transfer(_ source: StoragePath, to destination: StoragePath, move isMove: Bool, recursive: Bool,
                  overwrite: Bool) throws(StoreFailure) -> Bool {
        guard let entry = FileTree.entry(source) else { throw StoreFailure(status: 404, message: "not found: \(source.relative)") }
        let target: Location
        switch FileTree.locate(destination, followLast: false) {
        case let .success(l): target = l
        case .failure(.missing): throw StoreFailure(status: 409, message: "destination's parent collection is missing")
        case .failure(.refused): throw StoreFailure(status: 403, message: "Destination: leads outside the root")
        }
        let from = isMove ? entry.own : entry.target
        let method = isMove ? "MOVE" : "COPY"
        try Self.checkOverlap(from, isFolder: entry.stat.isDirectory && !(isMove && entry.isLink), target, method)
        let existing = target.stat()
        if existing != nil && !overwrite { throw StoreFailure(status: 412, message: "destination exists and Overwrite is F") }
        do {
            if isMove {
                try move(from, isFolder: entry.stat.isDirectory && !entry.isLink, to: target, replacing: existing)
            } else {
                try copy(from, to: target, recursive: recursive, replacing: existing != nil)
            }
        } catch {
            if let e = error as? FileSystemError, e.isNoSpace { throw StoreFailure(status: 507, message: "insufficient storage for \(destination.relative)") }
            if let e = error as? FileSystemError, e.isTooDeep {
                throw StoreFailure(status: 403, message: "cannot \(method) \(source.relative): its folders nest deeper than \(FileSystem.maxTreeDepth) levels")
            }
            throw StoreFailure(status: 500, message: "cannot \(method) \(source.relative) to \(destination.relative)")
        }
        return existing != nil
    }

    /// Builds the copy under a hidden temporary in the destination's folder and publishes it only when it is
    /// complete and synced: renamed into place, or exchanged with the entry it replaces, which is removed
    /// after. Any failure removes the temporary and leaves the destination as it was; a crash leaves the
    /// temporary to the start-up sweep.
    private func copy(_ from: Location, to target: Location, recursive: Bool, replacing: Bool) throws {
        let temp = FileSystem.tempName(kind: "copy")
        let folder = target.folder
        do {
            try TreeCopy(digests: digests).copy(from.folder, from.name, to: target.folder, temp, recursive: recursive)
            if replacing {
                try folder.exchange(temp, with: target.name, in: folder, path: target.name)
            } else {
                try folder.rename(temp, to: target.name, in: folder, path: target.name)
            }
        } catch {
            try? FileSystem.removeTree(in: target.folder, temp)
            if let e = error as? FileError { throw FileSystemError(e) }
            throw error
        }
        try? folder.sync(path: target.name)
        // The replaced entry now has the temporary's name; it is gone for readers already.
        if replacing { try? FileSystem.removeTree(in: target.folder, temp) }
    }

    /// One rename where the kernel can replace atomically (nothing there, or no folder on either side);
    /// otherwise the journalled three steps of ``MoveJournal``.
    private func move(_ from: Location, isFolder: Bool, to target: Location, replacing existing: FileStat?) throws {
        let source = from.folder, folder = target.folder
        do {
            guard let existing, isFolder || existing.isDirectory else {
                try source.rename(from.name, to: target.name, in: folder, path: target.name)
                try? folder.sync(path: target.name)
                try? source.sync(path: from.name)
                return
            }
            let moved = try from.folder.status(of: from.name)
            let temp = FileSystem.tempName(kind: "move")
            let journal = MoveJournal(rootPath: rootPath)
            let record = try journal.begin(.init(folder: Array(target.physical.dropLast()), temporary: temp,
                                                 destination: target.name, inode: moved.inode))
            defer { journal.end(record) }
            try source.rename(from.name, to: temp, in: folder, path: target.name)
            do { try folder.exchange(temp, with: target.name, in: folder, path: target.name) } catch {
                try? folder.rename(temp, to: from.name, in: source, path: from.name)
                throw error
            }
            try? folder.sync(path: target.name)
            try? source.sync(path: from.name)
            try? FileSystem.removeTree(in: target.folder, temp)
        } catch let e as FileError { throw FileSystemError(e) }
    }

    /// 403 when source and destination are one entry, when a folder would go into itself, or when replacing
    /// the destination would remove the source; compared where the entries really are, links resolved.
    private static func checkOverlap(_ source: Location, isFolder: Bool, _ destination: Location, _ method: String) throws(StoreFailure) {
        if source.physical == destination.physical { throw StoreFailure(status: 403, message: "source and destination are the same") }
        if isFolder && destination.isWithin(source) { throw StoreFailure(status: 403, message: "cannot \(method) a collection into itself") }
        if source.isWithin(destination) { throw StoreFailure(status: 403, message: "the destination holds the source") }
    }
}

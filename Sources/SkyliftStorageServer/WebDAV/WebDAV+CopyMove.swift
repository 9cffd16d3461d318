import Foundation
import SkyliftHTTPServer
import SkyliftSystem

/// COPY and MOVE (RFC 4918 §9.8, §9.9) with Destination, Overwrite and Depth; dead properties travel along.
///
/// Both work on descriptors (see ``FileTree``): the source is what GET would serve (an inside link reads as
/// its target for COPY; MOVE renames the link itself), nothing below it is followed, and links found inside
/// a copied folder are left out of the copy.
extension WebDAV {
    func copyOrMove(_ request: HTTPRequest, source: StoragePath) -> HTTPResponse {
        let isMove = request.method == "MOVE"
        let destination: StoragePath
        switch self.destination(request) {
        case let .value(p): destination = p
        case let .refused(response): return response
        }
        guard let entry = FileTree.entry(source) else { return .text(404, "not found: \(source.relative)") }
        if source.isRoot || destination.isRoot { return .text(403, "cannot \(request.method) the root collection") }
        let depth = request.headers["Depth"]?.trimmingSpaces().lowercased() ?? "infinity"
        guard depth == "infinity" || (depth == "0" && !isMove) else {
            return .text(400, "Depth \(depth) is not allowed for \(request.method)")
        }
        let overwrite = request.headers["Overwrite"]?.trimmingSpaces().uppercased() ?? "T"
        guard overwrite == "T" || overwrite == "F" else { return .text(400, "Overwrite must be T or F") }
        let target: Location
        switch FileTree.locate(destination, followLast: false) {
        case let .success(l): target = l
        case .failure(.missing): return .text(409, "destination's parent collection is missing")
        case .failure(.refused): return .text(403, "Destination: leads outside the root")
        }
        let from = isMove ? entry.own : entry.target
        if let refusal = overlap(from, isFolder: entry.stat.isDirectory && !(isMove && entry.isLink), target, request.method) {
            return refusal
        }
        let existing = target.stat()
        var changes = [Change(path: destination, subtree: true, membership: true)]
        if isMove { changes.append(Change(path: source, subtree: true, membership: true)) }
        if let refusal = checkLocks(request, target: source, changes: changes) { return refusal }
        if existing != nil && overwrite != "T" { return .text(412, "destination exists and Overwrite is F") }
        do {
            if isMove {
                try move(from, isFolder: entry.stat.isDirectory && !entry.isLink, to: target, replacing: existing)
                locks.removeAll(under: source)
            } else {
                try copy(from, to: target, recursive: depth == "infinity", replacing: existing != nil)
            }
        } catch {
            if let e = error as? FileSystemError, e.isNoSpace { return .text(507, "insufficient storage for \(destination.relative)") }
            if let e = error as? FileSystemError, e.isTooDeep {
                return .text(403, "cannot \(request.method) \(source.relative): its folders nest deeper than \(FileSystem.maxTreeDepth) levels")
            }
            return .text(500, "cannot \(request.method) \(source.relative) to \(destination.relative)")
        }
        if existing != nil { locks.removeAll(under: destination) }
        return existing == nil ? .text(201, "created") : HTTPResponse(status: 204)
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
    /// otherwise the journalled three steps of ``MoveJournal``. Properties and digest records travel with
    /// the entries (extended attributes).
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
            let journal = MoveJournal(rootPath: store.rootPath)
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

    /// The `Destination` header as a path under the root: 400 without one, 502 outside `/dav/` (another
    /// server's business, RFC 4918 §9.8.5), 403 when it leads out of the root.
    private func destination(_ request: HTTPRequest) -> Checked<StoragePath> {
        guard let header = request.headers["Destination"] else { return .refused(.text(400, "Destination header missing")) }
        switch store.resolver.resolve(destination: header) {
        case let .success(p): return .value(p)
        case .failure(.unreachable): return .refused(.text(403, "Destination: leads outside the root"))
        case let .failure(refusal):
            return .refused(.text(refusal == .notFound ? 502 : refusal.status, "Destination: \(refusal.message)"))
        }
    }

    /// 403 when source and destination are one entry, when a folder would go into itself, or when replacing
    /// the destination would remove the source; compared where the entries really are, links resolved.
    private func overlap(_ source: Location, isFolder: Bool, _ destination: Location, _ method: String) -> HTTPResponse? {
        if source.physical == destination.physical { return .text(403, "source and destination are the same") }
        if isFolder && destination.isWithin(source) { return .text(403, "cannot \(method) a collection into itself") }
        if source.isWithin(destination) { return .text(403, "the destination holds the source") }
        return nil
    }
}

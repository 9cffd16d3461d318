import Foundation
import HTTPServer
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
        if existing != nil {
            guard overwrite == "T" else { return .text(412, "destination exists and Overwrite is F") }
            do { try FileSystem.removeTree(in: target.folder, target.name) } catch {
                return WebDAV.removalFailed(error, "cannot replace \(destination.relative)")
            }
            properties.remove(destination)
            locks.removeAll(under: destination)
        }
        do {
            if isMove {
                guard renameat(from.folder, from.name, target.folder, target.name) == 0 else {
                    throw FileSystemError(operation: "rename", path: destination.relative, errno: errno)
                }
                properties.move(from: source, to: destination)
                locks.removeAll(under: source)
            } else {
                try copyTree(from.folder, from.name, to: target.folder, target.name, recursive: depth == "infinity")
                try properties.copy(from: source, to: destination)
            }
        } catch {
            if !isMove { try? FileSystem.removeTree(in: target.folder, target.name) }
            if let e = error as? FileSystemError, e.isNoSpace { return .text(507, "insufficient storage") }
            if let e = error as? FileSystemError, e.isTooDeep {
                return .text(403, "cannot \(request.method) \(source.relative): its folders nest deeper than \(FileSystem.maxTreeDepth) levels")
            }
            return .text(500, "cannot \(request.method) \(source.relative) to \(destination.relative)")
        }
        try? FileDescriptor(rawValue: target.folder).sync(path: destination.relative)
        return existing == nil ? .text(201, "created") : HTTPResponse(status: 204)
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

    /// Copies a file, or a folder with (when `recursive`) its files and folders, hidden property sidecars
    /// included; in-flight temp files, links, FIFOs, sockets and devices are left out.
    private func copyTree(_ fromFolder: Int32, _ fromName: String, to toFolder: Int32, _ toName: String, recursive: Bool,
                          depth: Int = 0) throws {
        guard let st = FileStat(at: fromFolder, fromName) else { throw FileSystemError(operation: "stat", path: fromName, errno: errno) }
        switch st.kind {
        case .directory:
            guard depth <= FileSystem.maxTreeDepth else { throw FileSystemError.tooDeep("copy", path: fromName) }
            guard mkdirat(toFolder, toName, 0o755) == 0 else { throw FileSystemError(operation: "mkdir", path: toName, errno: errno) }
            guard recursive else { return }
            let from = try FileSystem.openFolder(in: fromFolder, fromName)
            defer { close(from) }
            let to = try FileSystem.openFolder(in: toFolder, toName)
            defer { close(to) }
            guard let names = FileSystem.names(in: from) else { throw FileSystemError(operation: "read", path: fromName, errno: errno) }
            for name in names {
                if name.hasPrefix(PathResolver.hiddenPrefix) && !name.hasPrefix(PathResolver.hiddenPrefix + "props") { continue }
                guard FileStat(at: from, name)?.isServed == true else { continue }
                try copyTree(from, name, to: to, name, recursive: true, depth: depth + 1)
            }
        case .file:
            try copyFile(fromFolder, fromName, to: toFolder, toName)
        case .symlink, .other:
            throw FileSystemError(operation: "copy", path: fromName, errno: ENOENT)
        }
    }

    private func copyFile(_ fromFolder: Int32, _ fromName: String, to folder: Int32, _ name: String) throws {
        let input = try FileSystem.openRegularFile(in: fromFolder, fromName)
        defer { close(input) }
        let output: FileDescriptor
        do {
            output = try FileDescriptor.open(name, .writeOnly, options: [.create, .exclusive, .noFollow], permissions: 0o644,
                                             in: FileDescriptor(rawValue: folder))
        } catch { throw FileSystemError(error) }
        // The copy is hashed as it is written: its record is of the bytes it really holds.
        let sink = FileSink(file: output, path: name, digests: digests.recorder())
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileSink.bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n: Int
            do { n = try FileDescriptor(rawValue: input).read(into: buffer, path: fromName) } catch { throw FileSystemError(error) }
            if n == 0 { break }
            try sink.append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        try sink.sync(recordingIn: digests)
    }
}

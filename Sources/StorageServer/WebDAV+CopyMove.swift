import Foundation
import HTTPServer

/// COPY and MOVE (RFC 4918 §9.8, §9.9) with Destination, Overwrite and Depth; dead properties travel along.
extension WebDAV {
    func copyOrMove(_ request: HTTPRequest, source: StoragePath) -> HTTPResponse {
        let isMove = request.method == "MOVE"
        guard let destinationHeader = request.headers["Destination"] else { return .text(400, "Destination header missing") }
        let destination: StoragePath
        switch store.resolver.resolve(destination: destinationHeader) {
        case let .success(p): destination = p
        case let .failure(refusal): return .text(refusal == .notFound ? 502 : refusal.status, "Destination: \(refusal.message)")
        }
        guard let sourceStat = FileSystem.stat(source.filePath) else { return .text(404, "not found: \(source.relative)") }
        if source.isRoot || destination.isRoot { return .text(403, "cannot \(request.method) the root collection") }
        if source == destination { return .text(403, "source and destination are the same") }
        if sourceStat.isDirectory && destination.isWithin(source) {
            return .text(403, "cannot \(request.method) a collection into itself")
        }
        let depth = request.headers["Depth"]?.trimmingSpaces().lowercased() ?? "infinity"
        guard depth == "infinity" || (depth == "0" && !isMove) else {
            return .text(400, "Depth \(depth) is not allowed for \(request.method)")
        }
        let overwrite = request.headers["Overwrite"]?.trimmingSpaces().uppercased() ?? "T"
        guard overwrite == "T" || overwrite == "F" else { return .text(400, "Overwrite must be T or F") }
        guard let parent = destination.parent, FileSystem.stat(parent.filePath)?.isDirectory == true else {
            return .text(409, "destination's parent collection is missing")
        }
        let existing = FileSystem.stat(destination.filePath)
        var changes = [Change(path: destination, subtree: true, membership: true)]
        if isMove { changes.append(Change(path: source, subtree: true, membership: true)) }
        if let refusal = checkLocks(request, target: source, changes: changes) { return refusal }
        if existing != nil {
            guard overwrite == "T" else { return .text(412, "destination exists and Overwrite is F") }
            do { try FileSystem.removeTree(destination.filePath) } catch {
                return .text(500, "cannot replace \(destination.relative)")
            }
            properties.remove(destination)
            locks.removeAll(under: destination)
        }
        do {
            if isMove {
                try FileSystem.rename(source.filePath, destination.filePath)
                properties.move(from: source, to: destination)
                locks.removeAll(under: source)
            } else {
                try copyTree(source.filePath, destination.filePath, recursive: depth == "infinity")
                try properties.copy(from: source, to: destination)
            }
        } catch {
            if !isMove { try? FileSystem.removeTree(destination.filePath) }
            if let e = error as? FileSystemError, e.isNoSpace { return .text(507, "insufficient storage") }
            return .text(500, "cannot \(request.method) \(source.relative) to \(destination.relative)")
        }
        FileSystem.syncDirectory(parent.filePath)
        return existing == nil ? .text(201, "created") : HTTPResponse(status: 204)
    }

    /// Copies a file, or a folder with (when `recursive`) everything in it, hidden property sidecars included
    /// and in-flight temp files left out.
    private func copyTree(_ from: String, _ to: String, recursive: Bool) throws {
        guard let st = FileSystem.stat(from) else { throw FileSystemError(operation: "stat", path: from, errno: ENOENT) }
        if st.isDirectory {
            try FileSystem.makeDirectory(to)
            guard recursive else { return }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: from)) ?? [] {
                if name.hasPrefix(PathResolver.hiddenPrefix) && !name.hasPrefix(PathResolver.hiddenPrefix + "props") { continue }
                try copyTree(from + "/" + name, to + "/" + name, recursive: true)
            }
        } else {
            try copyFile(from, to)
        }
    }

    private func copyFile(_ from: String, _ to: String) throws {
        let input = try FileSystem.open(from, O_RDONLY)
        defer { close(input) }
        let output = try FileSystem.open(to, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
        let sink = FileSink(fd: output, path: to)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileSink.bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(input, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(operation: "read", path: from, errno: errno)
            }
            if n == 0 { break }
            try sink.append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        try sink.sync()
    }
}

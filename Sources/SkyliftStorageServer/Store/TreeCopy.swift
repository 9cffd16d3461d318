import Foundation
import SkyliftSystem

/// Builds the copy of a file or folder under a new name (a COPY's hidden temporary), durable before it is
/// published: every file's bytes, digest record and dead properties are synced, and every folder is synced
/// after its members were made, so once the copy is renamed into place a crash cannot tear it.
///
/// Works on descriptors (see ``FileTree``): nothing below the source is followed; links, FIFOs, sockets,
/// devices and the server's own hidden files found inside a copied folder are left out.
struct TreeCopy {
    let digests: DigestStore

    /// Copies `fromName` in the open folder `fromFolder` to `toName` in `toFolder`: a file, or a folder with
    /// (when `recursive`) its files and folders. On failure what was made may remain; the caller removes it.
    ///
    /// A folder is walked with a stack of its own rather than by recursion: a tree ``FileSystem/maxTreeDepth``
    /// deep would otherwise take more stack than a connection thread has.
    func copy(_ fromFolder: FileDescriptor, _ fromName: String, to toFolder: FileDescriptor, _ toName: String,
              recursive: Bool) throws {
        do {
            switch try fromFolder.status(of: fromName).kind {
            case .regular:
                try copyFile(fromFolder, fromName, to: toFolder, toName)
            case .directory:
                try copyFolder(fromFolder, fromName, to: toFolder, toName, recursive: recursive)
            case .symlink, .other:
                throw FileSystemError(operation: "copy", path: fromName, errno: .noSuchFile)
            }
        } catch let error as FileError { throw FileSystemError(error) }
    }

    /// A folder being copied: both ends open, the names still to copy.
    private struct Level {
        let from: FileDescriptor
        let to: FileDescriptor
        let name: String
        var pending: [String]
        let depth: Int
    }

    private func copyFolder(_ fromFolder: FileDescriptor, _ fromName: String, to toFolder: FileDescriptor, _ toName: String,
                            recursive: Bool) throws {
        var levels = [try enter(fromFolder, fromName, toFolder, toName, depth: 0, recursive: recursive)]
        defer { for level in levels { level.from.close(); level.to.close() } }
        while let top = levels.last {
            guard let name = levels[levels.count - 1].pending.popLast() else {
                // Every member is made: the folder is synced so they survive a crash once it is published.
                levels.removeLast()
                defer { top.from.close(); top.to.close() }
                try top.to.sync(path: top.name)
                continue
            }
            guard let status = FileStat(at: top.from, name), status.isServed else { continue }
            if status.isDirectory {
                guard top.depth < FileSystem.maxTreeDepth else { throw FileSystemError.tooDeep("copy", path: name) }
                levels.append(try enter(top.from, name, top.to, name, depth: top.depth + 1, recursive: true))
            } else {
                try copyFile(top.from, name, to: top.to, name)
            }
        }
    }

    /// Makes the folder `toName` with `fromName`'s dead properties and opens both.
    private func enter(_ fromFolder: FileDescriptor, _ fromName: String, _ toFolder: FileDescriptor, _ toName: String,
                       depth: Int, recursive: Bool) throws -> Level {
        try toFolder.makeFolder(toName)
        let from = try fromFolder.openFolder(fromName)
        let to: FileDescriptor
        do { to = try toFolder.openFolder(toName) } catch { from.close(); throw error }
        do {
            try DeadProperties.copy(from: from, to: to, path: toName)
            let names = recursive ? try from.entries(path: fromName).map(\.name).filter { !$0.hasPrefix(PathResolver.hiddenPrefix) } : []
            return Level(from: from, to: to, name: toName, pending: names.sorted(by: >), depth: depth)
        } catch {
            from.close()
            to.close()
            throw error
        }
    }

    private func copyFile(_ fromFolder: FileDescriptor, _ fromName: String, to folder: FileDescriptor, _ name: String) throws {
        let input = try fromFolder.openRegularFile(fromName)
        defer { input.close() }
        let output = try FileDescriptor.open(name, .writeOnly, options: [.create, .exclusive, .noFollow], permissions: 0o644, in: folder)
        // The copy is hashed as it is written: its record is of the bytes it really holds.
        let sink = FileSink(file: output, path: name, digests: digests.recorder())
        try DeadProperties.copy(from: input, to: output, path: name)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileSink.bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n: Int
            n = try input.read(into: buffer, path: fromName)
            if n == 0 { break }
            try sink.append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        try sink.sync(recordingIn: digests)
    }
}

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
    func copy(_ fromFolder: Int32, _ fromName: String, to toFolder: Int32, _ toName: String, recursive: Bool,
              depth: Int = 0) throws {
        guard let st = FileStat(at: fromFolder, fromName) else { throw FileSystemError(operation: "stat", path: fromName, errno: errno) }
        switch st.kind {
        case .directory:
            guard depth <= FileSystem.maxTreeDepth else { throw FileSystemError.tooDeep("copy", path: fromName) }
            guard mkdirat(toFolder, toName, 0o755) == 0 else { throw FileSystemError(operation: "mkdir", path: toName, errno: errno) }
            let from = try FileSystem.openFolder(in: fromFolder, fromName)
            defer { close(from) }
            let to = try FileSystem.openFolder(in: toFolder, toName)
            defer { close(to) }
            try DeadProperties.copy(from: FileDescriptor(rawValue: from), to: FileDescriptor(rawValue: to), path: toName)
            if recursive {
                guard let names = FileSystem.names(in: from) else { throw FileSystemError(operation: "read", path: fromName, errno: errno) }
                for name in names where !name.hasPrefix(PathResolver.hiddenPrefix) {
                    guard FileStat(at: from, name)?.isServed == true else { continue }
                    try copy(from, name, to: to, name, recursive: true, depth: depth + 1)
                }
            }
            try FileSystem.sync(to, path: toName)
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
        try DeadProperties.copy(from: FileDescriptor(rawValue: input), to: output, path: name)
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

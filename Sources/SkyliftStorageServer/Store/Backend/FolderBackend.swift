import Foundation
import SkyliftCore
import SkyliftHTTPServer
import SkyliftSystem

/// The folder store under the ``StoreBackend`` interface: files of a local directory, reached by walking
/// folder descriptors under ``FileTree``'s rule for links, sent by the kernel from the open descriptor.
struct FolderBackend: StoreBackend {
    /// The root's real path, where the MOVE journal lives.
    let rootPath: String
    let digests: DigestStore
    let properties: DeadProperties
    let space: SpaceCheck
    /// Small files read lately, answered from memory while unchanged; nil to read every time.
    var smallFiles: SmallFileCache? = nil

    func open(_ path: StoragePath) -> StoreLookup {
        if let cached = smallFiles?.file(path) { return .file(cached) }
        if let (fd, stat, status) = FileTree.openServedFile(path) {
            let file = FolderFile(fd: fd, stat: stat, digests: digests)
            if let smallFiles, status.size <= FolderFile.smallBodyLimit { file.remembered = (smallFiles, path, status) }
            return .file(file)
        }
        // Invisible entries (links out of the root, FIFOs, sockets, devices) are 404 like missing ones.
        guard let entry = FileTree.entry(path) else { return .missing }
        if entry.stat.isDirectory { return .folder }
        do {
            let (fd, stat) = try entry.target.openFileWithStat()
            return .file(FolderFile(fd: fd, stat: stat, digests: digests))
        } catch let e as FileSystemError {
            return [.noSuchFile, .notDirectory, .tooManyLinks].contains(e.errno)
                ? .missing : .failed(.text(403, "cannot read \(path.relative)"))
        } catch { return .failed(.text(500, "cannot read \(path.relative)")) }
    }

    func item(_ path: StoragePath) -> StoredItem? { FileTree.entry(path).map { StoredItem($0.stat) } }

    func members(of path: StoragePath) -> [StoredMember] {
        guard let entry = FileTree.entry(path), entry.stat.isDirectory else { return [] }
        return FileTree.members(of: entry, at: path).map { StoredMember(path: $0.path, item: StoredItem($0.stat)) }
    }

    func propertyReader(for target: StoragePath, members: Bool) -> any DeadPropertyReader {
        FolderPropertyReader(target: target, members: members, properties: properties)
    }

    func digestRecord(_ path: StoragePath, _ item: StoredItem) -> DigestRecord? {
        guard let stat = item.stat, let entry = FileTree.entry(path), let file = try? entry.target.openFile() else { return nil }
        defer { file.close() }
        // The record of the file a GET would serve, when it is still the file the listing described.
        guard let now = try? file.status(path: path.relative), FileStat(now) == stat else { return nil }
        return digests.load(fd: file, stat: stat)
    }
}

/// A regular file of the folder store, open for reading.
final class FolderFile: StoredFile {
    let fd: FileDescriptor
    let stat: FileStat
    let item: StoredItem
    private let digests: DigestStore
    /// Where the whole file's bytes go once read, with its path and full status: a small file reached by a plain path.
    var remembered: (cache: SmallFileCache, path: StoragePath, status: FileStatus)?

    init(fd: FileDescriptor, stat: FileStat, digests: DigestStore) {
        self.fd = fd
        self.stat = stat
        item = StoredItem(stat)
        self.digests = digests
    }

    func digestRecord() -> DigestRecord? { digests.load(fd: fd, stat: stat) }

    /// Bodies up to this size are read into memory and sent with the head in one write: one TCP segment instead
    /// of a head and then a `sendfile`, which for small files halves the packets and the receiver's wake-ups.
    static let smallBodyLimit: Int64 = 16 * 1024

    func smallBytes(_ range: ByteRange) -> [UInt8]? {
        guard range.length > 0, range.length <= Self.smallBodyLimit else { return nil }
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: Int(range.length)) { buffer, count in
            let n = (try? fd.read(into: UnsafeMutableRawBufferPointer(buffer), at: range.offset, path: "small body")) ?? 0
            complete = n == buffer.count
            count = complete ? n : 0
        }
        // Nil when the file shrank meanwhile: then it is sent from the descriptor, which ends the answer short.
        guard complete else { return nil }
        if let remembered, range.offset == 0, range.length == stat.size {
            remembered.cache.remember(bytes, of: remembered.path, status: remembered.status, record: digestRecord(),
                                      now: Int64(Date().timeIntervalSince1970))
        }
        return bytes
    }

    func body(_ range: ByteRange) -> HTTPResponse.Body {
        .file(descriptor: fd.rawValue, offset: range.offset, length: range.length)
    }

    func multipartBody(_ parts: [RangedResponse.Part], length: Int64) -> HTTPResponse.Body {
        .stream(length: length, producer: MultipartRanges(parts: parts, length: length, close: { [fd] in fd.close() }) { [fd] buffer, offset in
            try? fd.read(into: buffer, at: offset, path: "multipart part")
        })
    }

    func close() { fd.close() }
}

/// Dead properties read from the folder store's extended attributes. Members' properties are read through their
/// folder, opened once when the first is asked for (a PROPFIND of live properties only opens nothing), not by
/// walking from the root for each.
private final class FolderPropertyReader: DeadPropertyReader {
    let target: StoragePath
    let properties: DeadProperties
    private var members: Bool
    private var folder: FileDescriptor?

    init(target: StoragePath, members: Bool, properties: DeadProperties) {
        self.target = target
        self.members = members
        self.properties = properties
    }

    func properties(of path: StoragePath) -> [DeadProperties.Entry] {
        guard path != target else { return properties.load(path) }
        if members {
            members = false
            folder = FileTree.entry(target).flatMap { try? $0.target.openFolder() }
        }
        guard let folder else { return properties.load(path) }
        return properties.load(in: folder, path.name) ?? properties.load(path)
    }

    func close() { folder?.close() }
}

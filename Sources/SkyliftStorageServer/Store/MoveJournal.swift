import Foundation
import SkyliftSystem

/// Makes a MOVE that replaces a folder (or puts a folder over a file) finish after a crash.
///
/// Such a MOVE cannot be one rename: the kernel replaces only files and empty folders. It takes three steps
/// in the destination's folder: the source is renamed to a hidden temporary, exchanged with the destination
/// in one call (`renameat2(RENAME_EXCHANGE)`), and the old destination, now under the temporary name, is
/// removed. Between the first two steps the moved tree exists only under the hidden name, so before them an
/// intent record is written (``AtomicFile``, in `<root>/.skylift-journal/`) naming the folder, the temporary,
/// the destination and the source's inode. At start, before the first request, ``recover()`` reads each
/// record: a temporary that still is the source's inode is exchanged (or renamed) into place, any other
/// temporary is the old destination and is removed. Readers never see a name without its old or new entry.
struct MoveJournal: Sendable {
    struct Intent: Codable, Sendable {
        /// The destination's folder below the root, links resolved.
        var folder: [String]
        var temporary: String
        var destination: String
        /// The moved entry's inode, which tells the temporary's two states apart.
        var inode: UInt64
    }

    let rootPath: String
    var directory: String { rootPath + "/" + PathResolver.hiddenPrefix + "journal" }

    /// Records `intent` durably; returns the record's path for ``end(_:)``.
    func begin(_ intent: Intent) throws -> String {
        do { try PrivateFiles.createDirectory(directory) } catch { throw FileSystemError(error) }
        let path = directory + "/move-" + UUID().uuidString + ".json"
        do { try AtomicFile.replace(path, with: Array(try JSONEncoder().encode(intent))) } catch let e as FileError {
            throw FileSystemError(e)
        }
        return path
    }

    /// Drops a record whose MOVE finished (or was undone).
    func end(_ record: String) {
        Directory.remove(record)
        Directory.sync(directory)
    }

    /// Finishes or cleans up every MOVE a crash interrupted; returns how many records it found.
    @discardableResult
    func recover() -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var found = 0
        // A record whose write a crash cut is only its temp file: the MOVE it was for never began.
        for name in names where name.hasSuffix(".tmp") { Directory.remove(directory + "/" + name) }
        for name in names where name.hasPrefix("move-") && name.hasSuffix(".json") {
            let record = directory + "/" + name
            found += 1
            if let data = FileManager.default.contents(atPath: record), data.count <= 64 << 10,
               let intent = try? JSONDecoder().decode(Intent.self, from: data) {
                finish(intent)
            }
            end(record)
        }
        return found
    }

    private func finish(_ intent: Intent) {
        guard intent.temporary.hasPrefix(PathResolver.hiddenPrefix), !intent.temporary.contains("/"),
              !intent.destination.contains("/"), let folder = openFolder(intent.folder) else { return }
        defer { folder.close() }
        guard let temp = FileStat(at: folder, intent.temporary) else { return }
        let dir = folder
        if temp.inode == intent.inode {
            if FileStat(at: folder, intent.destination) != nil {
                guard (try? dir.exchange(intent.temporary, with: intent.destination, in: dir, path: intent.destination)) != nil else { return }
            } else {
                try? dir.rename(intent.temporary, to: intent.destination, in: dir, path: intent.destination)
                try? dir.sync(path: intent.destination)
                return
            }
            try? dir.sync(path: intent.destination)
        }
        try? FileSystem.removeTree(in: folder, intent.temporary)
        try? dir.sync(path: intent.destination)
    }

    /// Opens the folder `segments` below the root, following no link.
    private func openFolder(_ segments: [String]) -> FileDescriptor? {
        guard var fd = try? FileDescriptor.open(rootPath.isEmpty ? "/" : rootPath, .readOnly, options: .directory) else { return nil }
        for segment in segments {
            guard !segment.isEmpty, segment != ".", segment != "..", !segment.contains("/"),
                  let next = try? fd.openFolder(segment) else { fd.close(); return nil }
            fd.close()
            fd = next
        }
        return fd
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SkyliftSystem
import Synchronization

/// The destination folder's side of a download: folders made below it without following a link, the folders
/// whose entries changed (synced once at the end), and `--delete`'s walk.
final class LocalFolders: Sendable {
    let root: String
    private let touched = Mutex<Set<String>>([])

    init(root: String) { self.root = root }

    /// Creates the destination folder (and its parents) when missing.
    func makeRoot() throws(DownloadError) {
        if let status = try? FileStatus(root), status.isDirectory { return }
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            throw .local(FileError(path: root, reason: "cannot create the destination folder: \((error as NSError).localizedDescription)"))
        }
    }

    /// The local path for `relative`, its folders made (refusing a link or file in the way: a planted link
    /// must not lead the download out of the destination).
    func prepare(_ relative: String) throws(DownloadError) -> String {
        var path = root
        for part in RemotePathParts.folders(of: relative) {
            path += "/" + part
            if let status = try? FileStatus(path, followLinks: false) {
                guard status.isDirectory else {
                    throw .inTheWay(path: path, what: status.kind == .symlink ? "a symbolic link" : "a file")
                }
                continue
            }
            guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
                throw .local(FileError(call: "mkdir", path: path, errno: .current))
            }
        }
        let folder = AtomicFileFolder.of(root + "/" + relative)
        touched.withLock { _ = $0.insert(folder) }
        return root + "/" + relative
    }

    /// Makes the renames into every touched folder durable.
    func syncTouched() {
        for folder in touched.withLock({ $0 }) { Directory.sync(folder) }
    }

    /// Removes every regular file or link below the root that the filter takes and `keep` does not name,
    /// and partial downloads of such files; never follows a link, never leaves the root. Returns what went.
    func removeAllBut(_ keep: Set<String>, filter: PathFilter, removed: (String) -> Void) -> [String] {
        var gone: [String] = [], folders = [""]
        while let folder = folders.popLast() {
            let path = folder.isEmpty ? root : root + "/" + folder
            guard let fd = try? FileDescriptor.open(path, .readOnly, options: [.directory, .noFollow]) else { continue }
            let entries = (try? fd.entries(path: path)) ?? []
            fd.close()
            for entry in entries {
                let relative = folder.isEmpty ? entry.name : folder + "/" + entry.name
                guard let status = try? FileStatus(root + "/" + relative, followLinks: false) else { continue }
                if status.isDirectory {
                    if filter.entersFolder(relative) { folders.append(relative) }
                    continue
                }
                guard status.isRegular || status.kind == .symlink else { continue }
                let target = Self.partialTarget(folder, entry.name) ?? relative
                guard !keep.contains(target), filter.takesFile(target) else { continue }
                guard unlink(root + "/" + relative) == 0 else { continue }
                gone.append(relative)
                touched.withLock { _ = $0.insert(path) }
                removed(relative)
            }
        }
        syncTouched()
        return gone
    }

    /// The file a hidden partial download or its record belongs to (`.a.jpg.skylift-part` → `a.jpg`).
    static func partialTarget(_ folder: String, _ name: String) -> String? {
        for suffix in [".skylift-part", ".skylift-resume"] where name.hasPrefix(".") && name.hasSuffix(suffix) {
            let leaf = String(name.dropFirst().dropLast(suffix.count))
            return folder.isEmpty ? leaf : folder + "/" + leaf
        }
        return nil
    }
}

/// Folder names above a relative path.
enum RemotePathParts {
    static func folders(of path: String) -> [String] { path.split(separator: "/").dropLast().map(String.init) }
}

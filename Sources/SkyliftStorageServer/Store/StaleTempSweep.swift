import Foundation
import SkyliftSystem

/// Removes what a killed server left in the tree: temp files of PUTs and state writes (`.skylift-put-*`,
/// `.skylift-tmp-*`), COPY builds and the entries they replaced (`.skylift-copy-*`, files or folders), and
/// deleted entries not yet removed (`.skylift-trash-*`).
///
/// Runs once in the background after start. A temporary of this process (its name carries
/// ``FileSystem/runTag``) is never touched, so a request that began after the start keeps its temporary however
/// late the sweep gets there; of other files only those last changed before `cutoff` (the start time) go.
/// A MOVE's temporary (`.skylift-move-*`) is never swept: ``MoveJournal`` finishes or removes it at start.
struct StaleTempSweep: Sendable {
    let rootPath: String
    let cutoff: Date

    static let filePrefixes = [PathResolver.hiddenPrefix + "put-", PathResolver.hiddenPrefix + "tmp-"]
    static let treePrefixes = [PathResolver.hiddenPrefix + "copy-", PathResolver.hiddenPrefix + "trash-"]
    /// Folders of the server's own state, with rules of their own.
    static let stateFolders: Set<String> = [PathResolver.hiddenPrefix + "uploads", PathResolver.hiddenPrefix + "journal",
                                            PathResolver.hiddenPrefix + "thumbs"]

    func runInBackground() {
        let sweep = self
        Thread.detachNewThread { sweep.run() }
    }

    /// Sweeps the whole tree now; returns how many entries it removed.
    @discardableResult
    func run() -> Int {
        guard let root = try? FileDescriptor.open(rootPath.isEmpty ? "/" : rootPath, .readOnly, options: .directory) else { return 0 }
        defer { root.close() }
        return sweep(root, depth: 0)
    }

    private func sweep(_ folder: FileDescriptor, depth: Int) -> Int {
        guard depth <= FileSystem.maxTreeDepth, let entries = try? folder.entries(path: rootPath) else { return 0 }
        var removed = 0
        for entry in entries {
            let name = entry.name
            guard !name.contains(FileSystem.runTag), !Self.stateFolders.contains(name),
                  let status = try? FileStatus(name, in: folder, followLinks: false) else { continue }
            let stale = Date(timeIntervalSince1970: TimeInterval(status.modifiedSeconds)) < cutoff
            if Self.treePrefixes.contains(where: name.hasPrefix) {
                if stale, (try? FileSystem.removeTree(in: folder, name)) != nil { removed += 1 }
            } else if status.isRegular, Self.filePrefixes.contains(where: name.hasPrefix) {
                if stale, (try? folder.removeEntry(name)) != nil { removed += 1 }
            } else if status.isDirectory,
                      let child = try? folder.openFolder(name) {
                removed += sweep(child, depth: depth + 1)
                child.close()
            }
        }
        return removed
    }
}

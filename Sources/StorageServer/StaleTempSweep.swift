import Foundation

/// Removes temp files that a killed server left beside their targets (`.skylift-put-*`, `.skylift-tmp-*`).
///
/// Runs once in the background after start. A temp file of this process (its name carries
/// ``FileSystem/runTag``) is never touched, so a PUT that began after the start keeps its temp file however late
/// the sweep gets there; of other files only those last changed before `cutoff` (the start time) go.
struct StaleTempSweep: Sendable {
    let rootPath: String
    let cutoff: Date

    static let prefixes = [PathResolver.hiddenPrefix + "put-", PathResolver.hiddenPrefix + "tmp-"]

    func runInBackground() {
        let sweep = self
        Thread.detachNewThread { sweep.sweep(sweep.rootPath) }
    }

    func sweep(_ directory: String) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: directory)) ?? [] {
            let path = directory + "/" + name
            // attributesOfItem does not follow symlinks, so a link out of the root is never walked.
            guard let attributes = try? fm.attributesOfItem(atPath: path), let type = attributes[.type] as? FileAttributeType
            else { continue }
            if type == .typeDirectory {
                if name != PathResolver.hiddenPrefix + "uploads" { sweep(path) }
            } else if type == .typeRegular, Self.prefixes.contains(where: name.hasPrefix), !name.contains(FileSystem.runTag),
                      let modified = attributes[.modificationDate] as? Date, modified < cutoff {
                FileSystem.unlink(path)
            }
        }
    }
}

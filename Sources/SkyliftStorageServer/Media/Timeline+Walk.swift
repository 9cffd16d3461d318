import Foundation
import SkyliftCore
import SkyliftThumbnails

/// The walk behind a timeline: every image and video below the folder, with its `taken` time.
extension Timeline {
    /// The items below `folder` and whether the walk stopped at ``maxEntries``.
    func collect(_ folder: FileTree.Entry, _ top: StoragePath, _ scope: ShareScope?) -> (items: [Item], truncated: Bool) {
        var items: [Item] = []
        var seen = 0
        var stack: [(entry: FileTree.Entry, path: StoragePath)] = [(folder, top)]
        while let (entry, path) = stack.popLast() {
            for (child, stat) in FileTree.members(of: entry, at: path) {
                seen += 1
                if seen > Self.maxEntries { return (items, true) }
                if stat.isDirectory {
                    guard child.segments.count - top.segments.count <= FileSystem.maxTreeDepth,
                          let sub = FileTree.entry(child), !sub.isLink, scope?.contains(sub) ?? true else { continue }
                    stack.append((sub, child))
                } else if let kind = MediaKind(name: child.name), scope?.contains(child) ?? true {
                    items.append(item(child, stat, kind, top))
                }
            }
        }
        return (items, false)
    }

    private func item(_ path: StoragePath, _ stat: FileStat, _ kind: MediaKind, _ top: StoragePath) -> Item {
        var when = stat.mtime
        if kind == .image, let taken = dates.date(path: path.relative, stat: stat, using: maker,
                                                  open: { try? FileTree.entry(path)?.target.openFile() }) {
            when = FileTime(seconds: HTTPDate.seconds(taken), nanoseconds: 0)
        }
        let relative = path.segments.dropFirst(top.segments.count).joined(separator: "/")
        let date = Date(timeIntervalSince1970: TimeInterval(when.seconds))
        return Item(path: relative, name: path.name, size: stat.size, taken: UTCTimestamp.format(date),
                    type: MediaType.forPath(path.name), etag: stat.etag, when: when)
    }
}

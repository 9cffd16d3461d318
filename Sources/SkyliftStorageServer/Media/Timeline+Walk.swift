import Foundation
import SkyliftCore
import SkyliftThumbnails

/// The walk behind a timeline: every image and video below the folder, with its `taken` time.
extension Timeline {
    /// The items below `top` and whether the walk stopped at ``maxEntries``.
    func collect(_ top: StoragePath) -> (items: [Item], truncated: Bool) {
        var items: [Item] = []
        var seen = 0
        var stack: [StoragePath] = [top]
        while let path = stack.popLast() {
            for member in tree(path, path == top) ?? [] {
                seen += 1
                if seen > Self.maxEntries { return (items, true) }
                if member.item.isFolder {
                    if member.path.segments.count - top.segments.count <= FileSystem.maxTreeDepth { stack.append(member.path) }
                } else if let kind = MediaKind(name: member.path.name) {
                    items.append(item(member, kind, top))
                }
            }
        }
        return (items, false)
    }

    private func item(_ member: StoredMember, _ kind: MediaKind, _ top: StoragePath) -> Item {
        let when = taken(member, kind)
        let relative = member.path.segments.dropFirst(top.segments.count).joined(separator: "/")
        let date = Date(timeIntervalSince1970: TimeInterval(when.seconds))
        return Item(path: relative, name: member.path.name, size: member.item.size, taken: UTCTimestamp.format(date),
                    type: MediaType.forPath(member.path.name), etag: member.item.etag ?? "", when: when)
    }
}

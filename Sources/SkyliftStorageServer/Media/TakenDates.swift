import Foundation
import SkyliftCore
import SkyliftSystem
import SkyliftThumbnails

/// The capture dates of photos already read, so paging through a timeline reads each file's header once.
/// Keyed by path, inode, size and modification time: a changed or replaced file is read again. Bounded: past
/// ``maxEntries`` the table is emptied and refilled as pages are asked (a simple bound that never grows).
final class TakenDates: Sendable {
    static let maxEntries = 200_000

    private struct Key: Hashable {
        let path: String
        let inode: UInt64
        let size: Int64
        let mtime: FileTime
    }

    /// nil inside: the file was read and has no usable EXIF date.
    private let known = BoundedMemo<Key, Date?>(capacity: maxEntries)

    /// The EXIF capture date of the image `path` (stat `stat`), else nil; `open` opens it when it must be read.
    func date(path: String, stat: FileStat, using maker: Thumbnailer, open: () -> FileDescriptor?) -> Date? {
        let key = Key(path: path, inode: stat.inode, size: stat.size, mtime: stat.mtime)
        if let hit = known[key] { return hit }
        var found: Date?
        if let fd = open() {
            found = maker.takenDate(of: fd)
            fd.close()
        }
        known.remember(found, for: key)
        return found
    }
}

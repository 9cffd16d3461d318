import Foundation
import SkyliftCore
import SkyliftSystem
import SkyliftThumbnails

/// EXIF capture dates of a bucket's photos, for the timeline: the first ``photoHead`` bytes of a photo are read (a
/// JPEG keeps its EXIF in the first 64 KiB; most HEIC files near their start) into an unlinked, sparse file, and the
/// date taken from there by the same ``Thumbnailer`` as on a folder. Each version of a photo (path, ETag, size) is
/// read once per instance and remembered, so a timeline's first walk costs one ranged GET per photo and its other
/// pages none.
extension BucketThumbnails {
    /// Bytes read from the start of a photo for its date.
    static let photoHead: Int64 = 256 << 10

    /// When the photo `member` was taken, from its EXIF; nil when it has no date there, or no thumbnailer runs, or
    /// the bucket could not be read (then it is tried again next time).
    func takenDate(_ member: StoredMember) -> Date? {
        let item = member.item
        let key = member.path.relative + "\n" + (item.etag ?? "") + "\n" + String(item.size)
        if let known = dates[key] { return known }
        guard let folder, let maker else { return nil }
        guard case let .value(fd) = download(member.path, item, ranges: [ByteRange(offset: 0, length: min(item.size, Self.photoHead))],
                                             into: folder) else { return nil }
        defer { fd.close() }
        let found = maker.takenDate(of: fd)
        dates.remember(found, for: key)
        return found
    }
}

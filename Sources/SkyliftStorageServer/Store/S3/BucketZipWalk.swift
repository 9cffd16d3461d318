import Foundation
import SkyliftCore
import SkyliftWebApp

/// The members of a bucket folder, depth first, as zip entries: each folder listed only when its turn comes, each
/// file read only while it is being sent (``BucketZipContent``). Folders more than ``maxDepth`` below the top are
/// left out, as on the folder store. A folder or file the bucket cannot give is left out of the archive.
final class BucketZipWalk: ZipEntrySource {
    /// How deep below the top folders are walked.
    static let maxDepth = 64

    private let backend: BucketBackend
    private let top: StoragePath
    private var stack: [StoredMember]

    /// `only`: the top's members to take (empty: all of them), in the order given.
    init(_ backend: BucketBackend, _ top: StoragePath, only: [String] = []) {
        self.backend = backend
        self.top = top
        if only.isEmpty {
            stack = ((try? backend.members(of: top)) ?? []).reversed()
        } else {
            stack = only.reversed().compactMap { name in
                let path = top.appending(name)
                return (try? backend.item(path))?.map { StoredMember(path: path, item: $0) }
            }
        }
    }

    func next() -> ZipEntry? {
        while let member = stack.popLast() {
            let name = member.path.segments.dropFirst(top.segments.count).joined(separator: "/")
            let modified = member.item.lastModified ?? Date(timeIntervalSince1970: 0)
            if member.item.isFolder {
                if member.path.segments.count - top.segments.count > Self.maxDepth { continue }
                stack += ((try? backend.members(of: member.path)) ?? []).reversed()
                return ZipEntry(name: name + "/", modified: modified, size: 0, content: nil)
            }
            let content = BucketZipContent(backend: backend, path: member.path, etag: member.item.etag, size: member.item.size)
            return ZipEntry(name: name, modified: modified, size: member.item.size, content: content)
        }
        return nil
    }
}

/// A bucket file's bytes for an archive: read ahead in ranged GETs of up to ``window`` bytes, each pinned to the
/// ETag the listing gave (`If-Match`), so a file replaced meanwhile cuts the archive instead of mixing versions.
final class BucketZipContent: ZipContent {
    /// Bytes fetched at a time.
    static let window: Int64 = 4 << 20

    private let backend: BucketBackend
    private let path: StoragePath
    private let etag: String?
    private let size: Int64
    private var buffer: [UInt8] = []
    private var bufferStart: Int64 = 0

    init(backend: BucketBackend, path: StoragePath, etag: String?, size: Int64) {
        (self.backend, self.path, self.etag, self.size) = (backend, path, etag, size)
    }

    func read(into target: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int? {
        if offset < bufferStart || offset >= bufferStart + Int64(buffer.count) {
            guard offset < size else { return 0 }
            let length = min(Self.window, size - offset)
            let store = backend.store, key = BucketBackend.key(path), etag = etag
            let range = ByteRange(offset: offset, length: length)
            guard let bytes = try? backend.wait("read", path, {
                try await store.read(key, range: range, ifMatch: etag).collect(upTo: Int(length))
            }), Int64(bytes.count) == length else { return nil }
            (buffer, bufferStart) = (bytes, offset)
        }
        let start = Int(offset - bufferStart)
        let n = min(target.count, buffer.count - start)
        buffer.withUnsafeBytes { target.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: n) }
        return n
    }

    func close() { buffer = [] }
}

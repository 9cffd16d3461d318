import Foundation
import SkyliftSystem
import SkyliftHTTPServer

/// The bytes of an archive member, read in order: a file's descriptor, or anything else that gives bytes at an
/// offset (an object of a bucket).
public protocol ZipContent: AnyObject {
    /// Reads up to `buffer.count` bytes at `offset`; the count (0 or nil when there are none: the member is cut).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int?
    /// Lets go of what the content holds; called once, when the member is done or the archive ends.
    func close()
}

/// One member of an archive: a folder (name ending in `/`, no content) or a file's bytes.
public struct ZipEntry {
    /// Path inside the archive, `/`-separated.
    public var name: String
    public var modified: Date
    /// The file's size when it was opened; exactly this many bytes are sent.
    public var size: Int64
    /// The file's bytes (owned: the stream closes it); nil for a folder.
    public var content: (any ZipContent)?

    public init(name: String, modified: Date, size: Int64, content: (any ZipContent)?) {
        self.name = name
        self.modified = modified
        self.size = size
        self.content = content
    }

    /// A member read from an open descriptor (owned: the stream closes it); nil for a folder.
    public init(name: String, modified: Date, size: Int64, descriptor: FileDescriptor?) {
        self.init(name: name, modified: modified, size: size, content: descriptor.map(DescriptorContent.init))
    }
}

/// A member's bytes read from an open file.
final class DescriptorContent: ZipContent {
    private let fd: FileDescriptor

    init(_ fd: FileDescriptor) { self.fd = fd }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int? {
        try? fd.read(into: buffer, at: offset, path: "")
    }

    func close() { fd.close() }
}

/// Hands out the members of an archive one at a time, so nothing is listed or opened ahead of need.
public protocol ZipEntrySource: AnyObject {
    /// The next member; nil when there are no more.
    func next() -> ZipEntry?
}

/// A zip archive produced as it is sent: no temporary file, memory bounded by one buffer plus the central
/// directory's records. A file that shrinks while it is read fails the response (the client sees a cut
/// transfer, never a silently wrong archive).
public final class ZipStream: HTTPBodyProducer {
    private let source: ZipEntrySource
    /// Bytes waiting to go out before anything else (headers, descriptors, the directory).
    private var pending: [UInt8] = []
    private var pendingAt = 0
    private var current: (entry: ZipEntry, record: ZipLayout.Record, sent: Int64, crc: CRC32)?
    private var records: [ZipLayout.Record] = []
    private var written: Int64 = 0
    private var finished = false

    public init(source: ZipEntrySource) { self.source = source }

    public func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult {
        while true {
            if pendingAt < pending.count {
                let n = min(buffer.count, pending.count - pendingAt)
                pending.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + pendingAt, byteCount: n) }
                pendingAt += n
                written += Int64(n)
                return .bytes(n)
            }
            pending = []
            pendingAt = 0
            if current != nil { return copyFileBytes(into: buffer) }
            if finished { return .end }
            startNextEntry()
        }
    }

    private func copyFileBytes(into buffer: UnsafeMutableRawBufferPointer) -> HTTPProduceResult {
        guard var file = current, let content = file.entry.content else { return .failed }
        let remaining = file.entry.size - file.sent
        if remaining == 0 {
            file.record.crc = file.crc.value
            records.append(file.record)
            pending = ZipLayout.dataDescriptor(file.record)
            content.close()
            current = nil
            return produce(into: buffer, at: written)
        }
        let want = Int(min(Int64(buffer.count), remaining))
        // A short count (the file shrank under us) or an error cuts the archive short.
        guard let n = content.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< want]), at: file.sent), n > 0 else {
            return .failed
        }
        file.crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        file.sent += Int64(n)
        written += Int64(n)
        current = file
        return .bytes(n)
    }

    private func startNextEntry() {
        var next = source.next()
        // The format gives a name 16 bits of length: an entry with a longer name (a deep enough tree of long
        // folder names) is left out, its file closed, rather than written with a length that does not match it.
        while let entry = next, entry.name.utf8.count > Int(UInt16.max) {
            entry.content?.close()
            next = source.next()
        }
        guard let entry = next else {
            let directoryOffset = written
            var directory: [UInt8] = []
            for r in records { directory += ZipLayout.centralHeader(r) }
            pending = directory + ZipLayout.end(entries: records.count, directoryOffset: directoryOffset,
                                                directorySize: Int64(directory.count))
            finished = true
            return
        }
        let isFolder = entry.content == nil
        let record = ZipLayout.Record(name: Array(entry.name.utf8), size: isFolder ? 0 : entry.size, crc: 0,
                                      offset: written, isFolder: isFolder, modified: entry.modified)
        pending = ZipLayout.localHeader(record)
        if isFolder {
            pending += ZipLayout.dataDescriptor(record)
            records.append(record)
        } else {
            current = (entry, record, 0, CRC32())
        }
    }

    public func close() {
        current?.entry.content?.close()
        current = nil
    }
}

import Foundation

/// What makes one version of a source's content distinct from another.
///
/// Two opens of the same source that report equal identities promise the same bytes; that is what lets a
/// stream re-open an invalidated source and continue where it was. For files it is device + inode + size +
/// modification time; for HTTP objects the entity tag + length; for your own source, whatever changes
/// whenever the bytes do.
public struct BlobIdentity: Hashable, Sendable, CustomStringConvertible {
    /// An opaque value; compare, never parse.
    public var value: String

    public init(_ value: String) { self.value = value }

    public var description: String { value }
}

/// What an opened source reports about its content.
public struct BlobInfo: Hashable, Sendable {
    /// Total length in bytes. Reads stop here; a source that ends earlier is reported as truncated.
    public var length: Int64
    /// The identity of this version of the content.
    public var identity: BlobIdentity
    /// Media type, when the source knows it.
    public var contentType: String?

    public init(length: Int64, identity: BlobIdentity, contentType: String? = nil) {
        self.length = length
        self.identity = identity
        self.contentType = contentType
    }
}

/// A random-access byte source that ``BlobInputStream`` and ``BlobChunks`` read from.
///
/// Skylift ships ``FileSource`` and ``MemorySource`` here, and `HTTPSource` (ranged GETs) in Remotes. To plug
/// in your own (a photo library asset, an archive member, a decrypting view of another source), implement these members:
///
/// - ``open(completion:)`` prepares the source and calls `completion` exactly once with the content's
///   ``BlobInfo`` or an error. It may call back inline or later from any thread. If the callback always
///   arrives on one particular dispatch queue, return that queue from ``openCompletionQueue``: a stream
///   opened synchronously *on that queue* would wait forever for a callback that queue can never run, and
///   ``BlobInputStream`` turns that case into ``BlobStreamError/synchronousOpenWouldDeadlock(name:)``.
/// - ``read(into:at:)`` copies bytes at an absolute offset. It may block (streams call it on their own
///   threads, never on the Swift concurrency pool) and may return fewer bytes than asked; it returns 0 only
///   past the end.
/// - When the source learns that its open state went stale (a library change notice, a dropped session),
///   it returns `false` from ``isValid`` or throws ``BlobStreamError/invalidated(name:)`` from a read. The
///   stream then closes it, opens it again and compares ``BlobInfo/identity``: unchanged, it continues at
///   the same offset; changed, it fails with ``BlobStreamError/contentChanged(name:)``.
/// - ``close()`` releases what ``open(completion:)`` acquired; the source may be opened again afterwards.
///
/// A source instance serves one stream at a time.
public protocol BlobSource: AnyObject, Sendable {
    /// What to call the source in errors: a path or a URL without credentials or query.
    var name: String { get }
    /// The queue ``open(completion:)`` always calls back on, if it has one; nil when it calls back inline
    /// or on a thread of its own.
    var openCompletionQueue: DispatchQueue? { get }
    /// Prepares the source; calls `completion` exactly once.
    func open(completion: @escaping @Sendable (Result<BlobInfo, any Error>) -> Void)
    /// False once the source knows its open state is stale and it must be re-opened before the next read.
    var isValid: Bool { get }
    /// Copies up to `buffer.count` bytes starting at `offset`; returns how many (0 only at or past the end).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
    /// Releases what ``open(completion:)`` acquired.
    func close()
}

extension BlobSource {
    public var openCompletionQueue: DispatchQueue? { nil }
    public var isValid: Bool { true }

    /// Opens the source from async code.
    public func open() async throws -> BlobInfo {
        try await withCheckedThrowingContinuation { continuation in
            open { continuation.resume(with: $0) }
        }
    }
}

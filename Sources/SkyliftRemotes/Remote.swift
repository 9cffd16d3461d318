import Foundation
import SkyliftHTTPClient
import SkyliftCore

/// A storage location addressed as a folder: objects in it are named by relative paths (`a/b.mp4`).
///
/// Small on purpose: stat, ranged read, resumable write, list, delete. tus, WebDAV and S3 fit it; a write is a
/// session of parts that can be resumed from a persisted ``RemoteWrite/token``.
public protocol Remote: Sendable {
    /// The folder this remote addresses.
    var folderURL: URL { get }
    /// What this remote can do, for engines choosing part sizes and checksums.
    var capabilities: RemoteCapabilities { get }
    /// The protocol it speaks (what resume records name), asked instead of the remote's concrete type.
    var kind: RemoteKind { get }

    /// The object at `name`, or nil when there is none.
    func stat(_ name: String) async throws -> RemoteObject?
    /// Bytes of `name`, all of it or one range.
    func read(_ name: String, range: ByteRange?) async throws -> HTTPClientResponse
    /// The objects directly in the folder (or under `prefix`, a relative folder path).
    func list(_ prefix: String) async throws -> [RemoteObject]
    /// Removes `name`. Missing objects are not an error.
    func delete(_ name: String) async throws
    /// Moves `from` (a file, or a folder with everything under it) to `to`, replacing what is there and
    /// creating missing folders above it; nothing is uploaded again. Throws ``RemoteError/unsupported(url:operation:)``
    /// where the remote cannot move (a tus endpoint without WebDAV beside it).
    func move(_ from: String, to: String) async throws
    /// Copies `from` (a file, or a folder with everything under it) to `to`, like ``move(_:to:)``; `from` stays.
    func copy(_ from: String, to: String) async throws

    /// Starts writing `length` bytes to `name`. Nothing is visible under `name` until the write completes.
    func startWrite(_ name: String, length: Int64) async throws -> any RemoteWrite
    /// Reattaches to a write started earlier (by this process or one that died), or nil when the server
    /// no longer knows it.
    func resumeWrite(_ name: String, length: Int64, token: String) async throws -> (any RemoteWrite)?
}

/// One resumable write in progress.
public protocol RemoteWrite: Sendable {
    /// What to persist to reattach later (tus: the upload URL; S3: the upload id). Never holds a secret.
    var token: String { get }
    /// Whether a part after the first can start where the server left off. A WebDAV PUT cannot.
    var isResumable: Bool { get }
    /// Largest part one ``send(_:)`` call takes; nil means no limit. A write that is not resumable takes
    /// the whole object as one part.
    var maxPartLength: Int64? { get }
    /// The checksum algorithm parts should carry, if the server checks them.
    var partChecksum: PartChecksumAlgorithm? { get }

    /// Bytes the server has durably received (tus HEAD). 0 for non-resumable writes.
    func confirmedOffset() async throws -> Int64
    /// Sends one part; returns the server's offset after it.
    func send(_ part: WritePart) async throws -> Int64
    /// Completes the write (S3 complete, WebDAV move into place) once every byte was confirmed; the object is
    /// visible afterwards.
    func finish() async throws
    /// Abandons the write and removes what the server holds of it.
    func abort() async throws
    /// Whether one ``send(_:)`` should carry everything from the server's offset to the end: the write makes
    /// progress durable and checks it itself (tus `block-checksum`), so parts would only add round trips.
    var sendsToEnd: Bool { get }
    /// Gives the write a reader for any range of the source, for writes that check and re-send blocks of what
    /// was sent in ``finish()`` (tus `block-checksum`). Called before the first ``send(_:)`` or ``finish()``.
    func attach(reader: @escaping @Sendable (ByteRange) throws -> InputStream)
}

extension RemoteWrite {
    public var sendsToEnd: Bool { false }
    public func attach(reader: @escaping @Sendable (ByteRange) throws -> InputStream) {}
}

/// Algorithms a server may check parts with, in order of preference.
public enum PartChecksumAlgorithm: String, Sendable, CaseIterable {
    case sha256, sha1
}

/// One slice of the object to send.
public struct WritePart: Sendable {
    /// Where the slice starts in the object.
    public var offset: Int64
    /// Its length in bytes.
    public var length: Int64
    /// Digest of exactly these bytes, when the write asked for one.
    public var checksum: [UInt8]?
    /// Opens a stream positioned at `offset` that yields exactly `length` bytes.
    public var open: @Sendable () throws -> InputStream

    public init(offset: Int64, length: Int64, checksum: [UInt8]? = nil, open: @escaping @Sendable () throws -> InputStream) {
        self.offset = offset
        self.length = length
        self.checksum = checksum
        self.open = open
    }
}

/// What a remote offers.
public struct RemoteCapabilities: Sendable, Hashable {
    /// Writes resume from the server's offset.
    public var resumable: Bool
    /// Objects can be read back (GET with Range).
    public var readable: Bool
    /// Largest object the server accepts, when it says.
    public var maxSize: Int64?

    public init(resumable: Bool, readable: Bool, maxSize: Int64? = nil) {
        self.resumable = resumable
        self.readable = readable
        self.maxSize = maxSize
    }
}

/// An object as a remote describes it.
public struct RemoteObject: Sendable, Hashable {
    /// Its path relative to the remote's folder.
    public var name: String
    /// Where it can be read.
    public var url: URL
    public var info: ContentInfo
    /// Whether this is a folder.
    public var isFolder: Bool
    /// SHA-256 of the content, when the server says (`Repr-Digest`, `Digest`, `OC-Checksum`).
    public var sha256: [UInt8]?

    public init(name: String, url: URL, info: ContentInfo, isFolder: Bool = false, sha256: [UInt8]? = nil) {
        self.name = name
        self.url = url
        self.info = info
        self.isFolder = isFolder
        self.sha256 = sha256
    }
}

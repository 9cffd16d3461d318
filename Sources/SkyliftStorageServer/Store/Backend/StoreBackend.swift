import Foundation
import SkyliftCore
import SkyliftHTTPServer

/// What the storage server's handlers (GET, HEAD, PROPFIND, folder listings, PUT, DELETE, MKCOL) go through,
/// whichever store holds the files: a local folder (``FolderBackend``) or an S3 bucket (``BucketBackend``). HTTP's
/// rules stay above it, written once for both: validators and conditional requests, ranges, listings, WebDAV's
/// XML, lock checks, the answers' statuses.
///
/// Calls may block. The folder store blocks only on local disk, so its plain GETs may run on an event loop;
/// the bucket blocks on the network, so a server over a bucket runs every request on its work threads.
protocol StoreBackend: Sendable {
    /// What a read of `path` finds: a file opened for reading, a folder, nothing, or an answer explaining why
    /// the store could not be read.
    func open(_ path: StoragePath) -> StoreLookup
    /// The entry at `path` as a listing describes it; nil when nothing served is there.
    func item(_ path: StoragePath) throws(StoreFailure) -> StoredItem?
    /// The served members of the folder at `path`, sorted by name (hidden server files left out).
    func members(of path: StoragePath) throws(StoreFailure) -> [StoredMember]
    /// Reads dead properties of `target` and, with `members`, of the entries in it.
    func propertyReader(for target: StoragePath, members: Bool) -> any DeadPropertyReader
    /// The digests recorded for the file `item` describes, when they still describe it.
    func digestRecord(_ path: StoragePath, _ item: StoredItem) -> DigestRecord?

    /// 507 when a body of `length` bytes would not fit; nil to go on (or when the store cannot tell).
    func spaceRefusal(for length: Int64?, at path: StoragePath) -> HTTPResponse?
    /// A receiver storing a request body as the file at `path`, whole or not at all: readers see the old file
    /// until the new one is complete (and matches `expectedSHA256`, when given). `existed`: a file was there, so
    /// success is 204 rather than 201. `length`: the body's announced length, when it has one.
    func writer(_ path: StoragePath, existed: Bool, length: Int64?, maxSize: Int64, expectedSHA256: [UInt8]?) throws(StoreFailure) -> any HTTPBodyReceiver
    /// Removes the file or folder (with everything in it) at `path`; a link is removed itself.
    func remove(_ path: StoragePath) throws(StoreFailure)
    /// Makes the folder `path`, whose parent exists.
    func makeFolder(_ path: StoragePath) throws(StoreFailure)
    /// Changes the dead properties of the file or folder at `path`: `change` gets the stored set and returns false
    /// to keep it as it was. It may run more than once (a bucket reads again when the object changed meanwhile).
    /// 507 when the store cannot hold the new set.
    func updateProperties(_ path: StoragePath, _ change: (inout [DeadProperties.Entry]) -> Bool) throws(StoreFailure)
    /// Makes an empty file at `path`, where nothing is and whose parent exists (a LOCK on an unmapped URL).
    func createEmpty(_ path: StoragePath) throws(StoreFailure)
    /// Copies, or with `move` moves, the file or folder `source` to `destination` (a folder without its members
    /// when not `recursive`). What is at the destination is replaced when `overwrite`, else the answer is 412;
    /// 409 when the destination's parent is missing, 403 when source and destination overlap. True when something
    /// was replaced.
    func transfer(_ source: StoragePath, to destination: StoragePath, move: Bool, recursive: Bool, overwrite: Bool) throws(StoreFailure) -> Bool
}

/// A member of a listed folder.
struct StoredMember {
    var path: StoragePath
    var item: StoredItem
}

/// What ``StoreBackend/open(_:)`` found.
enum StoreLookup {
    /// A file, open for reading; whoever takes it closes it (or hands it to a response).
    case file(any StoredFile)
    /// A folder.
    case folder
    /// Nothing served is there.
    case missing
    /// The store could not be read: this is the answer to send.
    case failed(HTTPResponse)
}

/// Why a store could not be read or changed, with the status a request gets for it.
struct StoreFailure: Error, CustomStringConvertible {
    var status: Int
    var message: String

    var description: String { message }

    var response: HTTPResponse { .text(status, message) }
}

/// A stored file or folder as requests see it: kind, length and validators.
struct StoredItem: Sendable {
    var isFolder: Bool
    var size: Int64
    /// A strong validator, quoted; nil when the store has none (a bucket's folders).
    var etag: String?
    /// Nil when the store does not know (a bucket's folders).
    var lastModified: Date?
    /// The folder store's own metadata (inode, device, mtime in nanoseconds), nil for other stores.
    var stat: FileStat?
    /// A SHA-256 the store keeps with the file itself (an object's metadata), nil when it has none.
    var sha256: [UInt8]?

    init(_ stat: FileStat) {
        isFolder = stat.isDirectory
        size = stat.size
        etag = stat.etag
        lastModified = stat.lastModified
        self.stat = stat
    }

    init(isFolder: Bool, size: Int64, etag: String?, lastModified: Date?, sha256: [UInt8]? = nil) {
        self.isFolder = isFolder
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
        self.sha256 = sha256
    }

    /// What conditional requests compare against.
    var validators: ConditionalRequest.Validators { .init(etag: etag, lastModified: lastModified) }
}

/// A file opened for reading by a ``StoreBackend``: its metadata as of the opening, and its bytes.
protocol StoredFile: AnyObject {
    var item: StoredItem { get }
    /// The digests recorded for the file, when they still describe it.
    func digestRecord() -> DigestRecord?
    /// The bytes of `range` when they are few enough to send with the head in one write; nil otherwise.
    func smallBytes(_ range: ByteRange) -> [UInt8]?
    /// A body sending `range`; the body owns the file from then on.
    func body(_ range: ByteRange) -> HTTPResponse.Body
    /// A body sending several ranges as `multipart/byteranges`; the body owns the file from then on.
    func multipartBody(_ parts: [RangedResponse.Part], length: Int64) -> HTTPResponse.Body
    /// Releases the file when no body took it.
    func close()
}

/// Dead properties as one PROPFIND reads them.
protocol DeadPropertyReader {
    func properties(of path: StoragePath) -> [DeadProperties.Entry]
    /// Releases what the reader holds open.
    func close()
}

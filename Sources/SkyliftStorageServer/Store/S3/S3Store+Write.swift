import Foundation
import SkyliftCore
import SkyliftHashing
import SkyliftS3

/// An unfinished multipart write of an ``S3Store``, as its state object in the bucket records it
/// (`<prefix>.skylift/uploads/<id>`): any instance finds it (``S3Store/pendingUploads()``) and can abort it
/// (``S3Store/abort(_:)``). A resumable write (``S3Store/beginResumable(_:length:contentType:metadata:partial:blocks:)``) can also be
/// continued and finished by any instance.
public struct S3StoreUpload: Sendable, Hashable, Codable {
    /// The upload's own name, also the last component of its state object's and its staging object's keys.
    public var id: String
    /// The store path the finished file goes to.
    public var path: String
    /// The key the parts are uploaded to (`<prefix>.skylift/staging/<id>`), copied to the path when complete.
    public var stagingKey: String
    /// The service's UploadId of the multipart upload.
    public var uploadId: String
    /// The length of every part but the last.
    public var partSize: Int
    /// A resumable write's whole length, when it was given at the start.
    public var length: Int64?
    /// A resumable write's content type.
    public var contentType: String?
    /// What the client said of a resumable write when it began it (tus `Upload-Metadata`), kept as it came.
    public var metadata: String?
    /// True for a piece of a file (tus `Upload-Concat: partial`): finishing it keeps its bytes at the staging key
    /// for ``S3Store/concatenate(_:into:contentType:metadata:limit:)`` instead of storing a file.
    public var partial: Bool?
    /// The resumable writes a concatenation joined, in order (tus `Upload-Concat: final`).
    public var joined: [String]?
    /// Set once the write is complete (a finished partial, a joined file): its length.
    public var completedLength: Int64?
    /// tus `block-checksum`: the checksum (a `BlockChecksumAlgorithm` name) of every block, a block being a part;
    /// each whole part's is kept beside it (`.skylift/blocks/<id>/<index>`), the tail's is taken when asked.
    public var blockChecksum: String?
    /// `block-checksum`: blocks the client has confirmed, from the first on.
    public var confirmedBlocks: Int?
    /// `block-checksum`: blocks whose checksum the client's did not match, to be sent again.
    public var badBlocks: [Int]?

    /// The block checksum, when the write has one.
    public var blockAlgorithm: BlockChecksumAlgorithm? { blockChecksum.flatMap(BlockChecksumAlgorithm.init(rawValue:)) }
}

/// Reads a body in parts of a given size, however its chunks are cut, and knows when it has ended.
struct PartReader<Iterator: AsyncIteratorProtocol> where Iterator.Element == [UInt8] {
    private var iterator: Iterator
    /// The chunk being handed out, from `used` on.
    private var carry: [UInt8] = []
    private var used = 0
    /// True once the body has no more bytes after those handed out.
    private(set) var finished = false

    init(_ iterator: Iterator) { self.iterator = iterator }

    private var isDrained: Bool { used == carry.count }

    /// The next `size` bytes, fewer only at the end. Looks one chunk ahead, so `finished` is exact afterwards.
    mutating func next(size: Int) async throws -> [UInt8] {
        var part: [UInt8] = []
        try await next(size: size, into: &part)
        return part
    }

    /// Fills `part` (emptied first, its storage kept) with the next `size` bytes, fewer only at the end. Reusing one
    /// part's storage spares the kernel zeroing fresh pages for every part.
    mutating func next(size: Int, into part: inout [UInt8]) async throws {
        part.removeAll(keepingCapacity: true)
        part.reserveCapacity(size)
        while part.count < size {
            if isDrained { try await pull() }
            if isDrained { break }
            let take = min(size - part.count, carry.count - used)
            part.append(contentsOf: carry[used..<used + take])
            used += take
        }
        if isDrained { try await pull() }
    }

    /// Takes the next non-empty chunk into `carry`, or marks the end.
    private mutating func pull() async throws {
        while !finished && isDrained {
            if let chunk = try await iterator.next() { (carry, used) = (chunk, 0) } else { finished = true }
        }
    }
}

extension S3Store {
    /// Stores `body` as the file `path`, replacing any file there only once every byte is in and checked.
    ///
    /// The SHA-256 is computed as the bytes stream through and recorded in the object's metadata
    /// (``sha256Field``). When `expectedSHA256` is given and the bytes do not have it, nothing is stored and the
    /// old file stays (`digestMismatch`). A body up to ``partSize`` goes up in one PUT; a longer one as a multipart
    /// upload to a staging key whose state object (``S3StoreUpload``) is in the bucket, then copied into place on
    /// the service. At most one part is held in memory; none when `length` says beforehand that the body is longer
    /// than a part: then each part is sent while it arrives, unsigned (`UNSIGNED-PAYLOAD`, guarded in flight by the
    /// connection), and a part that fails ends the write. With `keepingProperties`, the properties of the file
    /// replaced (``propertiesField``) are carried into the new one, as a folder store's PUT keeps them.
    @discardableResult
    public func write<Body: AsyncSequence>(_ path: String, body: Body, length: Int64? = nil, expectedSHA256: [UInt8]? = nil,
                                           contentType: String? = nil, keepingProperties: Bool = false) async throws -> S3StoreEntry
    where Body.Element == [UInt8] {
        let path = try Self.checked(path, operation: "write")
        guard !path.isEmpty else { throw S3StoreError(operation: "write", path: path, reason: .invalidPath) }
        let type = contentType ?? MediaType.forPath(path)
        if let length, length > Int64(partSize) {
            return try await writeStreaming(path, body: body, length: length, expectedSHA256: expectedSHA256, contentType: type,
                                            keepingProperties: keepingProperties)
        }
        var reader = PartReader(body.makeAsyncIterator())
        let first = try await reader.next(size: partSize)
        guard reader.finished else {
            // Handed over, not kept here too: each part is let go once sent, the first one included.
            return try await writeParts(path, first: consume first, reader: &reader, expectedSHA256: expectedSHA256, contentType: type,
                                        keepingProperties: keepingProperties)
        }
        let sha256 = Digest.hash(.sha256, first)
        try Self.check(sha256, expected: expectedSHA256, path: path)
        do {
            let kept = keepingProperties ? await carriedProperties(path) : [:]
            let etag = try await client.putObject(bucket: bucket, key: key(path), body: .bytes(first), sha256: sha256, contentType: type,
                                                  metadata: kept.merging([Self.sha256Field: sha256.hexString]) { $1 }, condition: .always)
            return S3StoreEntry(path: path, kind: .file, info: ContentInfo(length: Int64(first.count), contentType: type, etag: etag),
                                sha256: sha256)
        } catch {
            throw S3StoreError.wrapping(error, operation: "write", path: path)
        }
    }

    /// The multipart path of ``write(_:body:expectedSHA256:contentType:)``: `first` is the first full part.
    private func writeParts<Iterator>(_ path: String, first: consuming [UInt8], reader: inout PartReader<Iterator>,
                                      expectedSHA256: [UInt8]?, contentType: String, keepingProperties: Bool) async throws -> S3StoreEntry {
        let upload = try await beginUpload(path, contentType: contentType)
        do {
            var digest = Digest(.sha256)
            var parts: [S3Part] = []
            var part = consume first
            var length: Int64 = 0
            var touched = ContinuousClock.now
            while true {
                if ContinuousClock.now - touched > Self.uploadHeartbeat {
                    try await record(upload, condition: .always)
                    touched = .now
                }
                digest.update(part)
                let sha256 = Digest.hash(.sha256, part)
                let etag = try await client.uploadPart(bucket: bucket, key: upload.stagingKey, uploadId: upload.uploadId,
                                                       number: parts.count + 1, body: .bytes(part), sha256: sha256)
                parts.append(S3Part(number: parts.count + 1, etag: etag, size: Int64(part.count), checksumSHA256: sha256.base64String))
                length += Int64(part.count)
                if reader.finished { break }
                // The sent part's storage takes the next: one part in memory, not two.
                try await reader.next(size: partSize, into: &part)
            }
            return try await place(upload, parts: parts, length: length, sha256: digest.finalize(), expectedSHA256: expectedSHA256,
                                   contentType: contentType, keepingProperties: keepingProperties)
        } catch {
            await discard(upload)
            throw S3StoreError.wrapping(error, operation: "write", path: path)
        }
    }

    /// Completes the multipart upload of a write whose bytes hash to `sha256` and copies it into place with its
    /// SHA-256 recorded (and the replaced file's properties, `keepingProperties`); nothing is placed when
    /// `expectedSHA256` differs. The caller discards the upload when this throws.
    func place(_ upload: S3StoreUpload, parts: [S3Part], length: Int64, sha256: [UInt8], expectedSHA256: [UInt8]?,
               contentType: String, keepingProperties: Bool) async throws -> S3StoreEntry {
        let path = upload.path
        try Self.check(sha256, expected: expectedSHA256, path: path)
        try await client.completeMultipartUpload(bucket: bucket, key: upload.stagingKey, uploadId: upload.uploadId, parts: parts)
        let kept = keepingProperties ? await carriedProperties(path) : [:]
        let etag = try await client.copyObject(bucket: bucket, from: upload.stagingKey, to: key(path), size: length,
                                               metadata: kept.merging([Self.sha256Field: sha256.hexString]) { $1 },
                                               contentType: contentType)
        await discard(upload)
        return S3StoreEntry(path: path, kind: .file, info: ContentInfo(length: length, contentType: contentType, etag: etag), sha256: sha256)
    }

    /// Starts the multipart upload of a write to `path` and records it in its state object.
    func beginUpload(_ path: String, contentType: String, length: Int64? = nil, metadata: String? = nil,
                     partial: Bool = false, blocks: BlockChecksumAlgorithm? = nil) async throws -> S3StoreUpload {
        let id = UUID().uuidString.lowercased()
        let staging = systemKey("staging/" + id)
        let upload: S3StoreUpload
        do {
            let uploadId = try await client.createMultipartUpload(bucket: bucket, key: staging, contentType: contentType)
            upload = S3StoreUpload(id: id, path: path, stagingKey: staging, uploadId: uploadId, partSize: partSize,
                                   length: length, contentType: length == nil ? nil : contentType, metadata: metadata,
                                   partial: partial ? true : nil, blockChecksum: blocks?.rawValue,
                                   confirmedBlocks: blocks == nil ? nil : 0, badBlocks: blocks == nil ? nil : [])
        } catch {
            throw S3StoreError.wrapping(error, operation: "write", path: path)
        }
        do {
            try await record(upload, condition: .absent)
            return upload
        } catch {
            await discard(upload)
            throw S3StoreError.wrapping(error, operation: "write", path: path)
        }
    }

    /// Writes the state object of `upload`; written again during a long write, so its age says how long the
    /// upload has been idle (see ``sweepAbandonedUploads(idleFor:now:)``).
    func record(_ upload: S3StoreUpload, condition: S3WriteCondition) async throws {
        let record = Array(try JSONEncoder().encode(upload))
        try await client.putObject(bucket: bucket, key: systemKey("uploads/" + upload.id), body: .bytes(record),
                                   sha256: Digest.hash(.sha256, record), contentType: "application/json", metadata: [:],
                                   condition: condition)
    }

    /// Removes what an upload leaves in the bucket: its multipart upload (if unfinished), staging object and
    /// state object. Best effort: what stays is listed by ``pendingUploads()``.
    func discard(_ upload: S3StoreUpload) async {
        try? await client.abortMultipartUpload(bucket: bucket, key: upload.stagingKey, uploadId: upload.uploadId)
        try? await client.deleteObject(bucket: bucket, key: upload.stagingKey)
        try? await client.deleteObject(bucket: bucket, key: systemKey("tails/" + upload.id))
        try? await client.deleteObject(bucket: bucket, key: systemKey("uploads/" + upload.id))
        if upload.blockChecksum != nil { await discardBlockDigests(upload) }
    }

    /// Aborts the unfinished write `upload` (of any instance) and removes what it left in the bucket.
    public func abort(_ upload: S3StoreUpload) async {
        await discard(upload)
    }

    /// The unfinished multipart writes recorded in the bucket by any instance.
    public func pendingUploads() async throws -> [S3StoreUpload] {
        var uploads: [S3StoreUpload] = []
        for object in try await keys(under: systemKey("uploads/"), operation: "uploads", path: "") {
            guard let bytes = try await systemObject(object.key, operation: "uploads") else { continue }
            guard let upload = try? JSONDecoder().decode(S3StoreUpload.self, from: Data(bytes.bytes)) else {
                throw S3StoreError(operation: "uploads", path: path(ofKey: object.key), reason: .invalidResponse("upload record does not parse"))
            }
            uploads.append(upload)
        }
        return uploads
    }

    /// The bytes (at most 1 MiB) and ETag of the store's own object `key`, or nil when it is gone.
    func systemObject(_ key: String, operation: String) async throws -> (bytes: [UInt8], etag: String, lastModified: Date?)? {
        do {
            let response = try await client.getObject(bucket: bucket, key: key)
            return (try await response.collect(upTo: 1 << 20), response.headers["ETag"] ?? "",
                    response.headers["Last-Modified"].flatMap(HTTPDate.parse))
        } catch let error as S3Error where error.status == 404 {
            return nil
        } catch {
            throw S3StoreError.wrapping(error, operation: operation, path: path(ofKey: key))
        }
    }

    /// Throws `digestMismatch` unless `expected` is nil or equals `actual`.
    static func check(_ actual: [UInt8], expected: [UInt8]?, path: String) throws {
        guard let expected, expected != actual else { return }
        throw S3StoreError(operation: "write", path: path, reason: .digestMismatch(expected: expected.hexString, actual: actual.hexString))
    }
}

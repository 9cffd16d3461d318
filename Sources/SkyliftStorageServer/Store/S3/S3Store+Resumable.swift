import Foundation
import SkyliftCore
import SkyliftHashing
import SkyliftS3

/// Where a resumable write of an ``S3Store`` stands, as the bucket says.
public struct S3StoreResumableState: Sendable, Hashable {
    /// The write as its state object records it.
    public var upload: S3StoreUpload
    /// Bytes stored so far: the whole parts uploaded, then the tail.
    public var offset: Int64
    /// The whole parts uploaded (parts 1…n, each ``S3StoreUpload/partSize`` long).
    var parts: [S3Part]
    /// Bytes kept in the tail object after the last whole part (fewer than a part).
    var tailLength: Int64
    /// When the write was last begun, appended to or given its length (its state object's Last-Modified).
    public var lastActive: Date?
    /// The state object's ETag, so a change of the record is made only over the one read.
    var recordETag: String
    /// The tail object's ETag as read (nil: there was none), so an append stores its tail only over the one it
    /// started from: of two appends racing from one offset (two instances), the second to end is refused.
    var tailETag: String? = nil

    /// Bytes in whole parts.
    var partBytes: Int64 { offset - tailLength }
}

/// Resumable writes, as tus needs them: begun once, appended to by any instance in as many requests as the
/// client makes, finished by any instance.
///
/// The state lives in the bucket, so an instance that never saw the write continues it: the multipart upload at
/// the staging key (its whole parts, listed with ListParts), and the bytes after the last whole part in a tail
/// object (`.skylift/tails/<id>`, its metadata naming how many parts it follows, so a tail left behind by a part
/// uploaded later is not counted). An append fills parts from the tail and the body, uploads each as soon as it is
/// whole and stores what is left as the new tail: a crash loses at most the bytes of the part being sent, which
/// the client sends again from the offset the bucket gives.
extension S3Store {
    /// Starts a resumable write to `path` (`length` bytes when known). Nothing is at `path` until it is finished.
    /// `metadata` is kept with the write, as it came (tus `Upload-Metadata`).
    /// With `partial`, the write is a piece of a file to be joined (``concatenate(_:into:contentType:metadata:limit:)``);
    /// `path` then names where it was begun (the folder), and may be the root.
    /// With `blocks` (tus `block-checksum`, which needs a `length`), every part's checksum is kept as it is stored,
    /// for the client to confirm (``blockDigests(_:_:)``, ``recordConfirmation(_:confirmed:bad:)``).
    public func beginResumable(_ path: String, length: Int64?, contentType: String? = nil, metadata: String? = nil,
                               partial: Bool = false, blocks: BlockChecksumAlgorithm? = nil) async throws -> S3StoreUpload {
        let path = try Self.checked(path, operation: "write")
        guard partial || !path.isEmpty, (length ?? 0) >= 0 else { throw S3StoreError(operation: "write", path: path, reason: .invalidPath) }
        return try await beginUpload(path, contentType: contentType ?? MediaType.forPath(path), length: length, metadata: metadata,
                                     partial: partial, blocks: length == nil || length == 0 ? nil : blocks)
    }

    /// Gives resumable write `id`, begun without a length, its length: `length` must not be below where it
    /// stands (`lengthMismatch`). The record changes only over the one read (`conflict` when another instance
    /// changed it meanwhile). Returns the state after.
    @discardableResult
    public func setResumableLength(_ id: String, _ length: Int64) async throws -> S3StoreResumableState {
        var state = try await resumableState(id)
        if let known = state.upload.length {
            guard known == length else {
                throw S3StoreError(operation: "set the length of", path: state.upload.path, status: 409,
                                   reason: .lengthMismatch(expected: known, actual: length))
            }
            return state
        }
        guard length >= state.offset else {
            throw S3StoreError(operation: "set the length of", path: state.upload.path, status: 409,
                               reason: .lengthMismatch(expected: length, actual: state.offset))
        }
        state.upload.length = length
        do {
            try await record(state.upload, condition: .matching(state.recordETag))
        } catch let error as S3Error where error.status == 412 {
            throw S3StoreError(operation: "set the length of", path: state.upload.path, status: 409, reason: .conflict)
        }
        return state
    }

    /// Ends resumable write `id` without storing it; `notFound` when there is no such write.
    public func abortResumable(_ id: String) async throws {
        await discard(try await resumableState(id).upload)
        runningDigests.drop(id)
    }

    /// Where resumable write `id` stands; `notFound` when there is no such write (finished, aborted, swept).
    public func resumableState(_ id: String) async throws -> S3StoreResumableState {
        let operation = "resume"
        guard !id.isEmpty, !id.contains("/"), let record = try await systemObject(systemKey("uploads/" + id), operation: operation),
              let upload = try? JSONDecoder().decode(S3StoreUpload.self, from: Data(record.bytes)) else {
            throw S3StoreError(operation: operation, path: id, status: 404, reason: .notFound)
        }
        if let completed = upload.completedLength {
            return S3StoreResumableState(upload: upload, offset: completed, parts: [], tailLength: 0, lastActive: record.lastModified,
                                         recordETag: record.etag)
        }
        var parts: [S3Part] = []
        do {
            // Only the run of whole parts from 1 counts; anything after a gap is sent again.
            for part in try await client.listParts(bucket: bucket, key: upload.stagingKey, uploadId: upload.uploadId).sorted(by: { $0.number < $1.number }) {
                guard part.number == parts.count + 1, part.size == Int64(upload.partSize) else { break }
                parts.append(part)
            }
        } catch {
            throw S3StoreError.wrapping(error, operation: operation, path: upload.path)
        }
        let tail = try await tailLength(upload, after: parts.count)
        let offset = Int64(parts.count) * Int64(upload.partSize) + tail.length
        return S3StoreResumableState(upload: upload, offset: offset, parts: parts, tailLength: tail.length, lastActive: record.lastModified,
                                     recordETag: record.etag, tailETag: tail.etag)
    }

    /// Appends `body` to resumable write `id` at `offset`, which must be where the write stands (else
    /// `wrongOffset`, naming it); returns where it stands after. A body that fails or ends early keeps what arrived
    /// before. A write begun with a length refuses bytes past it (`lengthMismatch`), keeping those before.
    @discardableResult
    public func append<Body: AsyncSequence>(_ id: String, at offset: Int64, body: Body) async throws -> Int64 where Body.Element == [UInt8] {
        let state = try await resumableState(id)
        let upload = state.upload
        if upload.completedLength != nil {
            throw S3StoreError(operation: "append", path: upload.path, status: 403, reason: .unfinished("the write is complete"))
        }
        guard offset == state.offset else {
            throw S3StoreError(operation: "append", path: upload.path, status: 409, reason: .wrongOffset(current: state.offset))
        }
        var tail = try await tailBytes(upload, state)
        // One part's storage, kept from part to part (growing it by appends would copy it a dozen times).
        tail.reserveCapacity(upload.partSize)
        var parts = state.parts.count
        let running = runningDigest(id, covering: state.partBytes)
        var chunks = body.makeAsyncIterator()
        do {
            // Chunk by chunk (not a part at a time), so bytes that arrived before the body failed are in `tail`.
            while let chunk = try await chunks.next() {
                if let length = upload.length, Int64(parts) * Int64(upload.partSize) + Int64(tail.count + chunk.count) > length {
                    throw S3StoreError(operation: "append", path: upload.path, status: 413,
                                       reason: .lengthMismatch(expected: length, actual: Int64(parts) * Int64(upload.partSize) + Int64(tail.count + chunk.count)))
                }
                var used = 0
                while used < chunk.count {
                    let take = min(upload.partSize - tail.count, chunk.count - used)
                    tail += chunk[used ..< used + take]
                    used += take
                    guard tail.count == upload.partSize else { continue }
                    try await uploadPart(upload, number: parts + 1, tail)
                    if let algorithm = upload.blockAlgorithm { try await recordBlock(upload, index: parts, tail, algorithm) }
                    tail.withUnsafeBytes { running?.update($0) }
                    parts += 1
                    tail.removeAll(keepingCapacity: true)
                }
            }
        } catch {
            // Whatever arrived whole is kept, so the client resumes after it.
            try? await storeTail(upload, tail, after: parts, had: state, sameParts: parts == state.parts.count)
            throw S3StoreError.wrapping(error, operation: "append", path: upload.path)
        }
        try await storeTail(upload, tail, after: parts, had: state, sameParts: parts == state.parts.count)
        if let running { runningDigests.keep(running, for: id, covered: Int64(parts) * Int64(upload.partSize)) }
        // Written again on every append: its age says how long the write has been idle (see the sweep).
        try? await record(upload, condition: .always)
        return Int64(parts) * Int64(upload.partSize) + Int64(tail.count)
    }

    /// Finishes resumable write `id`: its tail becomes the last part, the upload is completed and copied into
    /// place with its SHA-256 recorded, and its state goes. A write begun with a length must have all of it
    /// (`lengthMismatch`); with `expectedSHA256`, bytes that hash otherwise are not stored (`digestMismatch`).
    /// The SHA-256 comes from the running digest when this instance appended every part, else from reading the
    /// completed object once.
    @discardableResult
    public func finishResumable(_ id: String, expectedSHA256: [UInt8]? = nil) async throws -> S3StoreEntry {
        let state = try await resumableState(id)
        let upload = state.upload
        if let length = upload.length, length != state.offset {
            throw S3StoreError(operation: "finish", path: upload.path, status: 409, reason: .lengthMismatch(expected: length, actual: state.offset))
        }
        if upload.completedLength != nil {
            throw S3StoreError(operation: "finish", path: upload.path, status: 403, reason: .unfinished("the write is complete"))
        }
        if upload.partial == true { return try await finishPartial(state) }
        let running = runningDigest(id, covering: state.partBytes)
        let type = upload.contentType ?? MediaType.forPath(upload.path)
        do {
            // An empty file is one empty object: a multipart upload needs a part, and an empty part is not one.
            if state.offset == 0 { return try await finishEmpty(upload, expectedSHA256: expectedSHA256, contentType: type) }
            var parts = state.parts
            let tail = try await tailBytes(upload, state)
            if !tail.isEmpty {
                parts.append(try await uploadPart(upload, number: parts.count + 1, tail))
                tail.withUnsafeBytes { running?.update($0) }
            }
            try await client.completeMultipartUpload(bucket: bucket, key: upload.stagingKey, uploadId: upload.uploadId, parts: parts)
            let sha256: [UInt8]
            if let running { sha256 = running.sha256 } else { sha256 = try await hashObject(upload.stagingKey) }
            try Self.check(sha256, expected: expectedSHA256, path: upload.path)
            // A file the upload replaces hands its properties on, as on a folder store.
            let kept = await carriedProperties(upload.path)
            let etag = try await client.copyObject(bucket: bucket, from: upload.stagingKey, to: key(upload.path), size: state.offset,
                                                   metadata: kept.merging([Self.sha256Field: sha256.hexString]) { $1 }, contentType: type)
            await discard(upload)
            runningDigests.drop(id)
            return S3StoreEntry(path: upload.path, kind: .file, info: ContentInfo(length: state.offset, contentType: type, etag: etag),
                                sha256: sha256)
        } catch {
            // A digest mismatch ends the write; anything else leaves it to be finished again.
            if case .digestMismatch = (error as? S3StoreError)?.reason { await discard(upload) }
            runningDigests.drop(id)
            throw S3StoreError.wrapping(error, operation: "finish", path: upload.path)
        }
    }

    /// A finished partial write: its parts completed into the staging object, its record marked complete (so
    /// the bytes wait there for a concatenation, and are swept with the record when none comes).
    private func finishPartial(_ state: S3StoreResumableState) async throws -> S3StoreEntry {
        var upload = state.upload
        do {
            if state.offset == 0 {
                try? await client.abortMultipartUpload(bucket: bucket, key: upload.stagingKey, uploadId: upload.uploadId)
            } else {
                var parts = state.parts
                let tail = try await tailBytes(upload, state)
                if !tail.isEmpty { parts.append(try await uploadPart(upload, number: parts.count + 1, tail)) }
                try await client.completeMultipartUpload(bucket: bucket, key: upload.stagingKey, uploadId: upload.uploadId, parts: parts)
            }
            try? await client.deleteObject(bucket: bucket, key: systemKey("tails/" + upload.id))
            upload.completedLength = state.offset
            try await record(upload, condition: .always)
            runningDigests.drop(upload.id)
            return S3StoreEntry(path: upload.path, kind: .file, info: ContentInfo(length: state.offset, contentType: upload.contentType,
                                                                                    etag: nil), sha256: nil)
        } catch {
            runningDigests.drop(upload.id)
            throw S3StoreError.wrapping(error, operation: "finish", path: upload.path)
        }
    }

    private func finishEmpty(_ upload: S3StoreUpload, expectedSHA256: [UInt8]?, contentType: String) async throws -> S3StoreEntry {
        let sha256 = Digest.hash(.sha256, [UInt8]())
        try Self.check(sha256, expected: expectedSHA256, path: upload.path)
        let kept = await carriedProperties(upload.path)
        let etag = try await client.putObject(bucket: bucket, key: key(upload.path), body: .bytes([]), sha256: sha256, contentType: contentType,
                                              metadata: kept.merging([Self.sha256Field: sha256.hexString]) { $1 }, condition: .always)
        await discard(upload)
        runningDigests.drop(upload.id)
        return S3StoreEntry(path: upload.path, kind: .file, info: ContentInfo(length: 0, contentType: contentType, etag: etag), sha256: sha256)
    }

    /// The running SHA-256 of write `id` when it covers exactly `covered` bytes (a new one at 0); else nil.
    private func runningDigest(_ id: String, covering covered: Int64) -> DigestRecorder? {
        runningDigests.take(id, covering: covered) ?? (covered == 0 ? DigestRecorder([.sha256]) : nil)
    }

    // MARK: Parts and tails

    @discardableResult
    func uploadPart(_ upload: S3StoreUpload, number: Int, _ bytes: [UInt8]) async throws -> S3Part {
        let sha256 = Digest.hash(.sha256, bytes)
        let etag = try await client.uploadPart(bucket: bucket, key: upload.stagingKey, uploadId: upload.uploadId,
                                               number: number, body: .bytes(bytes), sha256: sha256)
        return S3Part(number: number, etag: etag, size: Int64(bytes.count), checksumSHA256: sha256.base64String)
    }

    /// The tail object's field naming how many whole parts its bytes follow.
    static let tailPartsField = "skylift-parts"

    /// The length of the tail of `upload` when it follows exactly `parts` whole parts (0 otherwise), and the tail
    /// object's ETag (nil when there is none).
    private func tailLength(_ upload: S3StoreUpload, after parts: Int) async throws -> (length: Int64, etag: String?) {
        do {
            let head = try await client.headObjectMetadata(bucket: bucket, key: systemKey("tails/" + upload.id))
            guard head.metadata[Self.tailPartsField] == String(parts), let length = head.info.length,
                  length < Int64(upload.partSize) else { return (0, head.info.etag ?? "") }
            return (length, head.info.etag ?? "")
        } catch let error as S3Error where error.status == 404 {
            return (0, nil)
        } catch {
            throw S3StoreError.wrapping(error, operation: "resume", path: upload.path)
        }
    }

    /// The tail's bytes as `state` measured them (none when it has no tail).
    func tailBytes(_ upload: S3StoreUpload, _ state: S3StoreResumableState) async throws -> [UInt8] {
        guard state.tailLength > 0 else { return [] }
        do {
            let bytes = try await client.getObject(bucket: bucket, key: systemKey("tails/" + upload.id)).collect(upTo: upload.partSize)
            guard bytes.count == state.tailLength else {
                throw S3StoreError(operation: "resume", path: upload.path, reason: .invalidResponse("the tail changed while being read"))
            }
            return bytes
        } catch {
            throw S3StoreError.wrapping(error, operation: "resume", path: upload.path)
        }
    }

    /// Stores `tail` as the bytes after `parts` whole parts, only over the tail object `state` read (an empty
    /// one stands for none, so that condition holds too); nothing to do when it is what the tail object holds.
    /// `conflict` (409) when another append changed the tail meanwhile: its bytes stand, this one's do not.
    private func storeTail(_ upload: S3StoreUpload, _ tail: [UInt8], after parts: Int, had state: S3StoreResumableState,
                           sameParts: Bool) async throws {
        if sameParts && Int64(tail.count) == state.tailLength { return }
        if tail.isEmpty && state.tailETag == nil { return }
        let condition: S3WriteCondition = state.tailETag.map { .matching($0) } ?? .absent
        do {
            try await client.putObject(bucket: bucket, key: systemKey("tails/" + upload.id), body: .bytes(tail),
                                       sha256: Digest.hash(.sha256, tail), contentType: "application/octet-stream",
                                       metadata: [Self.tailPartsField: String(parts)], condition: condition)
        } catch let error as S3Error where Self.isConditionFailure(error) {
            throw S3StoreError(operation: "append", path: upload.path, status: 409, reason: .conflict)
        }
    }

    /// The SHA-256 of object `key`, read through once.
    private func hashObject(_ key: String) async throws -> [UInt8] {
        var digest = Digest(.sha256)
        let response = try await client.getObject(bucket: bucket, key: key)
        for try await chunk in response.body { digest.update(chunk) }
        return digest.finalize()
    }
}

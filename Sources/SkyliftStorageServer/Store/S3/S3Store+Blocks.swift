import SkyliftCore
import SkyliftHashing
import SkyliftS3

/// tus `block-checksum` on a resumable write: a block is a part, so a block sent again is a part uploaded again.
/// Each whole part's checksum is stored beside it as the part is stored (`.skylift/blocks/<id>/<index>`); the
/// last, short block lives in the tail object until the write is finished, and its checksum is taken from there
/// when asked. A part whose checksum was not stored (the instance died in between) has none, so the client's
/// confirmation names it bad and the client sends it again: nothing unchecked is ever finished.
extension S3Store {
    func blockKey(_ upload: S3StoreUpload, _ index: Int) -> String { systemKey("blocks/\(upload.id)/\(index)") }

    /// Stores the checksum of block `index`, whose bytes are `bytes` (part `index + 1`).
    func recordBlock(_ upload: S3StoreUpload, index: Int, _ bytes: [UInt8], _ algorithm: BlockChecksumAlgorithm) async throws {
        var sum = BlockChecksum(algorithm)
        bytes.withUnsafeBytes { sum.update($0) }
        let digest = sum.finalizeAndReset()
        try await client.putObject(bucket: bucket, key: blockKey(upload, index), body: .bytes(digest), sha256: Digest.hash(.sha256, digest),
                                   contentType: "application/octet-stream", metadata: [:], condition: .always)
    }

    /// Blocks of the write the bucket holds whole: every part, and the tail once it ends the write.
    public func receivedBlocks(_ state: S3StoreResumableState) -> Int {
        state.parts.count + (state.tailLength > 0 && state.offset == state.upload.length ? 1 : 0)
    }

    /// The stored checksums of blocks `range` of the write `state` describes (each below ``receivedBlocks(_:)``);
    /// nil for a part whose checksum was never stored.
    public func blockDigests(_ state: S3StoreResumableState, _ range: Range<Int>) async throws -> [[UInt8]?] {
        guard let algorithm = state.upload.blockAlgorithm else { return range.map { _ in nil } }
        var found: [[UInt8]?] = []
        for index in range {
            if index < state.parts.count {
                found.append(try await systemObject(blockKey(state.upload, index), operation: "confirm")?.bytes)
            } else {
                let tail = try await tailBytes(state.upload, state)
                var sum = BlockChecksum(algorithm)
                tail.withUnsafeBytes { sum.update($0) }
                found.append(sum.finalizeAndReset())
            }
        }
        return found
    }

    /// Records that the client confirmed blocks up to `confirmed` and found `bad` among them.
    public func recordConfirmation(_ upload: S3StoreUpload, confirmed: Int, bad: [Int]) async throws {
        var upload = upload
        upload.confirmedBlocks = confirmed
        upload.badBlocks = bad
        do { try await record(upload, condition: .always) } catch { throw S3StoreError.wrapping(error, operation: "confirm", path: upload.path) }
    }

    /// Stores `bytes`, already checked against the client's checksum, as block `index` of resumable write `id`
    /// again (a part uploaded again, or the tail written again), and takes it off the bad blocks. Returns the state
    /// after. The running SHA-256 no longer covers the bytes: finishing reads the file once instead.
    public func replaceBlock(_ id: String, index: Int, with bytes: [UInt8]) async throws -> S3StoreResumableState {
        var state = try await resumableState(id)
        var upload = state.upload
        guard let algorithm = upload.blockAlgorithm else {
            throw S3StoreError(operation: "repair", path: upload.path, status: 400, reason: .unfinished("the write has no block checksums"))
        }
        runningDigests.drop(id)
        do {
            if index < state.parts.count, bytes.count == upload.partSize {
                state.parts[index] = try await uploadPart(upload, number: index + 1, bytes)
                try await recordBlock(upload, index: index, bytes, algorithm)
            } else if index == state.parts.count, Int64(bytes.count) == state.tailLength, let etag = state.tailETag {
                try await client.putObject(bucket: bucket, key: systemKey("tails/" + id), body: .bytes(bytes), sha256: Digest.hash(.sha256, bytes),
                                           contentType: "application/octet-stream", metadata: [Self.tailPartsField: String(index)],
                                           condition: .matching(etag))
            } else {
                throw S3StoreError(operation: "repair", path: upload.path, status: 409, reason: .conflict)
            }
            upload.badBlocks?.removeAll { $0 == index }
            try await record(upload, condition: .always)
        } catch let error as S3Error where Self.isConditionFailure(error) {
            throw S3StoreError(operation: "repair", path: upload.path, status: 409, reason: .conflict)
        } catch {
            throw S3StoreError.wrapping(error, operation: "repair", path: upload.path)
        }
        state.upload = upload
        return state
    }

    /// Removes the stored block checksums of `upload` (best effort, as ``discard(_:)``).
    func discardBlockDigests(_ upload: S3StoreUpload) async {
        guard let keys = try? await client.listObjects(bucket: bucket, prefix: systemKey("blocks/\(upload.id)/")) else { return }
        for object in keys { try? await client.deleteObject(bucket: bucket, key: object.key) }
    }
}

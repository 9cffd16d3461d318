import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import Synchronization
import SkyliftS3

/// One multipart upload as a ``PartedWrite``: parts of `partLength` bytes, numbered from the start of the object,
/// sent in any order and several at once. The service's part list (ListParts) is the truth about what is stored,
/// so a write reattached by another process sends only the parts it lacks.
final class S3Write: PartedWrite {
    let remote: S3Remote
    let name: String
    let length: Int64
    let uploadId: String
    let partLength: Int64
    /// Parts this process sent, with the checksums the service may leave out of its listing.
    private let sent = Mutex<[Int: S3Part]>([:])

    init(remote: S3Remote, name: String, length: Int64, uploadId: String) {
        self.remote = remote
        self.name = name
        self.length = length
        self.uploadId = uploadId
        self.partLength = S3PartSize.forObject(length: length, minimum: remote.partLength ?? S3PartSize.standard)
    }

    /// The UploadId: not a secret, useless without the credentials.
    var token: String { uploadId }
    var isResumable: Bool { true }
    var maxPartLength: Int64? { partLength }
    var partChecksum: PartChecksumAlgorithm? { .sha256 }

    /// The bytes held in parts 1, 2, … up to the first missing or stale one.
    func confirmedOffset() async throws -> Int64 {
        let stored = try await storedParts()
        var offset: Int64 = 0
        for number in 1...partCount(length: length) {
            let part = range(ofPart: number, length: length)
            guard stored[number] == part.length else { break }
            offset = part.offset + part.length
        }
        return offset
    }

    /// One part after another (an engine that does not use the parted capability).
    func send(_ part: WritePart) async throws -> Int64 {
        let number = Int(part.offset / partLength) + 1
        guard part.offset % partLength == 0, part.length == range(ofPart: number, length: length).length else {
            throw RemoteError.protocolViolation(url: remote.url(name), reason: "part at \(part.offset) of \(part.length) bytes is not part \(number)")
        }
        try await send(part, number: number)
        return part.offset + part.length
    }

    func send(_ part: WritePart, number: Int) async throws {
        guard number >= 1, Int64(number) <= S3PartSize.maximumParts else {
            throw RemoteError.protocolViolation(url: remote.url(name), reason: "part number \(number) outside 1...10000")
        }
        let etag: String
        do {
            etag = try await remote.client.uploadPart(bucket: bucket, key: key, uploadId: uploadId, number: number,
                                                      body: .stream(length: part.length, open: part.open), sha256: part.checksum)
        } catch {
            throw remote.remoteError(error, method: "PUT", name: name)
        }
        let stored = S3Part(number: number, etag: etag, size: part.length, checksumSHA256: part.checksum?.base64String)
        sent.withLock { $0[number] = stored }
    }

    func storedParts() async throws -> [Int: Int64] {
        Dictionary(try await listed().map { ($0.number, $0.size) }, uniquingKeysWith: { $1 })
    }

    /// Completes with parts 1…n, each of its expected size; a stale part left by another part size is not used.
    func finish() async throws {
        let mine = sent.withLock { $0 }
        let listed = Dictionary(try await listed().map { ($0.number, $0) }, uniquingKeysWith: { $1 })
        var parts: [S3Part] = []
        for number in 1...partCount(length: length) {
            guard var part = listed[number], part.size == range(ofPart: number, length: length).length else {
                throw RemoteError.protocolViolation(url: remote.url(name), reason: "the service lacks part \(number) at completion")
            }
            // Checksums we sent fill in where the listing leaves them out.
            if part.checksumSHA256 == nil, let sent = mine[number], sent.etag == part.etag { part.checksumSHA256 = sent.checksumSHA256 }
            parts.append(part)
        }
        do {
            try await remote.client.completeMultipartUpload(bucket: bucket, key: key, uploadId: uploadId, parts: parts)
        } catch {
            throw remote.remoteError(error, method: "POST", name: name)
        }
    }

    func abort() async throws {
        do {
            try await remote.client.abortMultipartUpload(bucket: bucket, key: key, uploadId: uploadId)
        } catch let error as S3Error where error.code == "NoSuchUpload" {
        } catch {
            throw remote.remoteError(error, method: "DELETE", name: name)
        }
    }

    private var bucket: String { remote.location.bucket }
    private var key: String { remote.key(name) }

    private func listed() async throws -> [S3Part] {
        do {
            return try await remote.client.listParts(bucket: bucket, key: key, uploadId: uploadId)
        } catch {
            throw remote.remoteError(error, method: "GET", name: name)
        }
    }
}

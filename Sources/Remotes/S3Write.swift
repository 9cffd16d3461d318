import Foundation
import Hashing
import HTTPClient
import Synchronization

/// One multipart upload as a `RemoteWrite`. Parts are numbered in the order they follow each other from the
/// start of the object; the service's part list (ListParts) is the truth about what is stored, so a write
/// reattached by another process continues after the last contiguous part.
final class S3Write: RemoteWrite {
    let remote: S3Remote
    let name: String
    let length: Int64
    let uploadId: String
    /// Parts stored so far, contiguous from part 1.
    private let parts = Mutex<[S3Part]>([])

    init(remote: S3Remote, name: String, length: Int64, uploadId: String) {
        self.remote = remote
        self.name = name
        self.length = length
        self.uploadId = uploadId
    }

    /// The UploadId: not a secret, useless without the credentials.
    var token: String { uploadId }
    var isResumable: Bool { true }
    /// Large enough that 10,000 parts cover the object.
    var maxPartLength: Int64? { S3Uploader.partSize(for: length, minimum: 8 << 20) }
    var partChecksum: PartChecksumAlgorithm? { .sha256 }

    private var bucket: String { remote.location.bucket }
    private var key: String { remote.key(name) }

    func confirmedOffset() async throws -> Int64 {
        let stored = try await storedParts()
        parts.withLock { $0 = stored }
        return try total(stored)
    }

    /// The bytes `parts` hold; a listing whose sizes do not fit in Int64 is the service's fault, not a trap.
    private func total(_ parts: [S3Part]) throws -> Int64 {
        guard let sum = S3Part.total(parts) else {
            throw RemoteError.protocolViolation(url: remote.url(name), reason: "the service lists parts whose sizes overflow")
        }
        return sum
    }

    func send(_ part: WritePart) async throws -> Int64 {
        let (number, earlier) = parts.withLock { ($0.count + 1, $0) }
        let offset = try total(earlier)
        guard part.offset == offset else { throw RemoteError.offsetConflict(url: remote.url(name)) }
        guard part.length >= S3Uploader.smallestPartSize || part.length == length - part.offset else {
            throw RemoteError.protocolViolation(url: remote.url(name),
                                                reason: "S3 parts before the last must be at least 5 MiB; this one has \(part.length) bytes")
        }
        let etag: String
        do {
            etag = try await remote.client.uploadPart(bucket: bucket, key: key, uploadId: uploadId, number: number,
                                                      body: .stream(length: part.length, open: part.open), sha256: part.checksum)
        } catch {
            throw remote.remoteError(error, method: "PUT", name: name)
        }
        let stored = S3Part(number: number, etag: etag, size: part.length, checksumSHA256: part.checksum?.base64String)
        parts.withLock { $0.append(stored) }
        return part.offset + part.length
    }

    func finish() async throws {
        // Parts sent by an earlier process are known only to the service; checksums we sent fill in where
        // its listing leaves them out.
        let sent = Dictionary(parts.withLock { $0 }.map { ($0.number, $0) }, uniquingKeysWith: { $1 })
        let stored = try await storedParts().map { part in
            var part = part
            if part.checksumSHA256 == nil, let mine = sent[part.number], mine.etag == part.etag { part.checksumSHA256 = mine.checksumSHA256 }
            return part
        }
        let held = try total(stored)
        guard held == length else {
            throw RemoteError.protocolViolation(url: remote.url(name), reason: "the service holds \(held) of \(length) bytes at completion")
        }
        do {
            try await remote.client.completeMultipartUpload(bucket: bucket, key: key, uploadId: uploadId, parts: stored)
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

    /// The stored parts numbered 1, 2, … without a gap; anything after a gap will be sent again.
    private func storedParts() async throws -> [S3Part] {
        let listed: [S3Part]
        do {
            listed = try await remote.client.listParts(bucket: bucket, key: key, uploadId: uploadId)
        } catch {
            throw remote.remoteError(error, method: "GET", name: name)
        }
        var contiguous: [S3Part] = []
        for part in listed.sorted(by: { $0.number < $1.number }) where part.number == contiguous.count + 1 {
            contiguous.append(part)
        }
        return contiguous
    }
}

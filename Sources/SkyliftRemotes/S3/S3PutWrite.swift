import Foundation
import SkyliftCore
import SkyliftS3

/// A write small enough for one part, sent as a single PUT: a multipart upload of one part would cost two
/// more requests and resume nothing (a part is stored whole or not at all).
///
/// Not resumable: an interrupted PUT stores nothing, so the engine sends the whole object again. The body
/// carries its SHA-256 (signed and sent as `x-amz-checksum-sha256`), which the service checks.
struct S3PutWrite: RemoteWrite {
    /// The token recorded for a PUT: there is no upload to reattach to.
    static let token = "s3-single-put"

    let remote: S3Remote
    let name: String

    var token: String { Self.token }
    var isResumable: Bool { false }
    var maxPartLength: Int64? { nil }
    var partChecksum: PartChecksumAlgorithm? { .sha256 }

    func confirmedOffset() async throws -> Int64 { 0 }

    func send(_ part: WritePart) async throws -> Int64 {
        do {
            try await remote.client.putObject(bucket: remote.location.bucket, key: remote.key(name),
                                              body: .stream(length: part.length, open: part.open), sha256: part.checksum,
                                              contentType: MediaType.forPath(name))
        } catch {
            throw remote.remoteError(error, method: "PUT", name: name)
        }
        return part.offset + part.length
    }

    /// The PUT made the object visible already.
    func finish() async throws {}

    /// Nothing to remove: an unfinished PUT leaves nothing behind.
    func abort() async throws {}
}

import Foundation
import SkyliftHashing
import SkyliftHTTPServer
import SkyliftCore
import SkyliftSystem

extension RangedGet {
    /// Algorithms `Repr-Digest` offers, by RFC 9530 key. SHA-1 and MD5 are kept only for the ownCloud
    /// checksum property: the digest registry marks them deprecated, so they are not sent here.
    static let offeredDigests = ["sha-256"]

    /// `Repr-Digest` (RFC 9530) for the file as it is, when its record still describes it; with
    /// `Want-Repr-Digest`, only if the client did not refuse SHA-256 (weight 0). A malformed preference is
    /// ignored, as if absent. It describes the whole file, so it goes on range answers too.
    func addReprDigest(_ request: HTTPRequest, file: any StoredFile, to headers: inout HTTPHeaders) {
        let chosen = request.headers["Want-Repr-Digest"].flatMap(DigestPreference.init)?.choose(from: Self.offeredDigests)
            ?? Self.offeredDigests
        guard chosen.contains("sha-256"), let record = file.digestRecord() else { return }
        headers.add("Repr-Digest", Self.reprDigest(record))
    }

    static func reprDigest(_ record: DigestRecord) -> String { "sha-256=:\(record.sha256.base64String):" }
}

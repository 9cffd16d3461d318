import Foundation

/// SHA-256 digests in headers: the ones servers volunteer in responses, and `Content-Digest` on a PUT, which the
/// embedded server checks the body against.
public enum ServerDigest {
    /// `Content-Digest` (RFC 9530) for a body whose SHA-256 is `digest`.
    public static func contentDigest(_ digest: [UInt8]) -> String { "sha-256=:\(Data(digest).base64EncodedString()):" }

    /// Sent with a 400 answer to a PUT whose body did not match its `Content-Digest`: the client may send it again.
    public static let mismatchHeader = "Want-Content-Digest"

    /// The SHA-256 in `Repr-Digest` (RFC 9530, `sha-256=:b64:`), `Digest` (RFC 3230, `SHA-256=b64`) or
    /// `OC-Checksum` (`SHA256:hex`), whichever comes first; nil when none is there or it is malformed.
    public static func sha256(_ headers: HTTPHeaders) -> [UInt8]? {
        for field in ["Repr-Digest", "Content-Digest", "Digest"] {
            for value in headers.values(field) {
                for item in value.split(separator: ",") {
                    let kv = item.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                    guard kv.count == 2, kv[0].lowercased() == "sha-256" else { continue }
                    let b64 = kv[1].trimmingCharacters(in: CharacterSet(charactersIn: ": "))
                    if let d = Data(base64Encoded: b64), d.count == 32 { return Array(d) }
                }
            }
        }
        if let oc = headers["OC-Checksum"] {
            for item in oc.split(separator: " ") {
                let kv = item.split(separator: ":", maxSplits: 1)
                if kv.count == 2, kv[0].uppercased() == "SHA256", let bytes = Hex.bytes(String(kv[1])), bytes.count == 32 { return bytes }
            }
        }
        return nil
    }
}

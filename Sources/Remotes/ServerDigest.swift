import Foundation
import Hashing
import SkyliftCore

/// SHA-256 digests servers volunteer in response headers.
public enum ServerDigest {
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
                if kv.count == 2, kv[0].uppercased() == "SHA256", let bytes = hexBytes(String(kv[1])), bytes.count == 32 { return bytes }
            }
        }
        return nil
    }

    static func hexBytes(_ hex: String) -> [UInt8]? {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: nil
        }
    }
}

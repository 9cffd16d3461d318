import CCrypto
import Foundation
import SkyliftCore

/// The two ways to name a server certificate: the SHA-256 of the whole certificate (what browsers and
/// `openssl x509 -fingerprint -sha256` show) and the SHA-256 of its public key (what `--pin-sha256`,
/// curl's `--pinnedpubkey` and Chromium's `--ignore-certificate-errors-spki-list` compare).
public struct CertificateDigests: Sendable, Equatable {
    /// SHA-256 of the certificate's DER encoding.
    public var certificate: [UInt8]
    /// SHA-256 of the certificate's SubjectPublicKeyInfo.
    public var publicKey: [UInt8]

    /// Digests of the first certificate in `pem`; throws when none parses.
    public init(pem: String) throws(CertificateError) {
        var cert = [UInt8](repeating: 0, count: 32)
        var spki = [UInt8](repeating: 0, count: 32)
        let bytes = Array(pem.utf8)
        let ok = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                skylift_cert_digests(chars.baseAddress, chars.count, &cert, &spki)
            }
        }
        guard ok == 1 else { throw .unreadableCertificate }
        certificate = cert
        publicKey = spki
    }

    /// `AB:CD:…`, upper-case hex pairs joined by colons, as `openssl x509 -fingerprint` prints.
    public var fingerprint: String {
        certificate.map { Hex.string([$0], uppercase: true) }.joined(separator: ":")
    }

    /// `sha256//<base64>`: the public-key pin in the form `--pin-sha256` and curl take.
    public var pin: String { "sha256//" + Data(publicKey).base64EncodedString() }

    /// True when `keyPEM` is a readable, unencrypted private key belonging to the certificate in `certificatePEM`.
    public static func keyMatches(certificatePEM: String, keyPEM: String) -> Bool {
        let cert = Array(certificatePEM.utf8), key = Array(keyPEM.utf8)
        return cert.withUnsafeBufferPointer { c in
            key.withUnsafeBufferPointer { k in
                c.withMemoryRebound(to: CChar.self) { cc in
                    k.withMemoryRebound(to: CChar.self) { kk in
                        skylift_cert_key_matches(cc.baseAddress, cc.count, kk.baseAddress, kk.count) == 1
                    }
                }
            }
        }
    }
}

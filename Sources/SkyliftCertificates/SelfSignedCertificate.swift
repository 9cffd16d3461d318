import CCrypto
import Foundation

/// A freshly made self-signed server certificate (EC P-256, SHA-256 signature) and its private key, both PEM.
public struct SelfSignedCertificate: Sendable {
    public var certificatePEM: String
    public var keyPEM: String

    /// Makes a certificate for `names`: DNS names and IPv4/IPv6 literals, all put in subjectAltName (the
    /// first is also the subject's common name). Valid from an hour ago for `days` days.
    public static func make(names: [String], days: Int = 3650) throws(CertificateError) -> SelfSignedCertificate {
        let unique = names.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        guard let first = unique.first else { throw .generation("no names given") }
        var entries: [String] = []
        for name in unique {
            guard isUsableName(name) else {
                throw .generation("not a host name or IP address: \(name.debugDescription)")
            }
            entries.append((Self.isIPAddress(name) ? "IP:" : "DNS:") + name)
        }
        var cert: UnsafeMutablePointer<CChar>?
        var key: UnsafeMutablePointer<CChar>?
        guard skylift_make_self_signed(first, entries.joined(separator: ","), Int32(clamping: days), &cert, &key) == 1,
              let cert, let key else {
            throw .generation("libcrypto could not build the certificate")
        }
        defer {
            // The key's bytes are wiped before the buffer goes back to malloc.
            memset(key, 0, strlen(key))
            free(key)
            free(cert)
        }
        return SelfSignedCertificate(certificatePEM: String(cString: cert), keyPEM: String(cString: key))
    }

    static func isIPAddress(_ name: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
    }

    /// Whether `name` can go into the certificate: ASCII letters, digits, '-', '.', ':' (IPv6) and '_', so
    /// nothing can end or extend the alt-name list it is written into.
    public static func isUsableName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 253 && name.unicodeScalars.allSatisfy { c in
            c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || "-.:_".unicodeScalars.contains(c))
        }
    }
}

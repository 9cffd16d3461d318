import SkyliftCertificates
import Foundation
import Testing

@Suite struct CertificatesTests {
    @Test func selfSignedCertificateParsesAndItsKeyMatches() throws {
        let made = try SelfSignedCertificate.make(names: ["localhost", "127.0.0.1", "::1", "localhost"])
        #expect(made.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(made.keyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let digests = try CertificateDigests(pem: made.certificatePEM)
        #expect(digests.certificate.count == 32 && digests.publicKey.count == 32)
        #expect(digests.fingerprint.split(separator: ":").count == 32)
        #expect(digests.pin.hasPrefix("sha256//") && Data(base64Encoded: String(digests.pin.dropFirst(8)))?.count == 32)
        #expect(CertificateDigests.keyMatches(certificatePEM: made.certificatePEM, keyPEM: made.keyPEM))

        // Every certificate gets a key of its own: the other one's key neither matches nor pins the same.
        let other = try SelfSignedCertificate.make(names: ["localhost"])
        #expect(!CertificateDigests.keyMatches(certificatePEM: made.certificatePEM, keyPEM: other.keyPEM))
        #expect(try CertificateDigests(pem: other.certificatePEM).publicKey != digests.publicKey)
    }

    @Test func namesThatCouldBreakTheAltNameListAreRefused() {
        for bad in ["", "a,b", "x,DNS:evil.example", "with space", "ünï", "a\u{0}b", String(repeating: "a", count: 300)] {
            #expect(!SelfSignedCertificate.isUsableName(bad), "\(bad.debugDescription)")
            #expect(throws: CertificateError.self) { try SelfSignedCertificate.make(names: [bad]) }
        }
        #expect(throws: CertificateError.self) { try SelfSignedCertificate.make(names: []) }
        #expect(SelfSignedCertificate.isUsableName("fe80::1") && SelfSignedCertificate.isUsableName("my-host_1.lan"))
    }

    @Test func garbageIsNotACertificateOrAKey() throws {
        let made = try SelfSignedCertificate.make(names: ["localhost"])
        let truncated = String(made.certificatePEM.prefix(made.certificatePEM.count / 2))
        for text in ["", "hello", truncated, made.keyPEM, String(repeating: "-----BEGIN CERTIFICATE-----\n", count: 1000)] {
            #expect(throws: CertificateError.unreadableCertificate) { try CertificateDigests(pem: text) }
        }
        #expect(!CertificateDigests.keyMatches(certificatePEM: made.certificatePEM, keyPEM: "junk"))
        #expect(!CertificateDigests.keyMatches(certificatePEM: "junk", keyPEM: made.keyPEM))
    }
}

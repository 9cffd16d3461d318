import SkyliftCertificates
import Foundation
import SkyliftHTTPServer
import SkyliftCore
import SkyliftSystem

/// `serve --tls-cert FILE --tls-key FILE` and `serve --tls-self-signed`: the certificate the server speaks
/// HTTPS with, and the lines that tell clients how to trust it.
struct ServeTLS {
    var identity: TLSIdentity
    var digests: CertificateDigests
    /// Where the certificate came from, for the start-up lines.
    var source: String

    /// `--tls-cert FILE`, `--tls-key FILE`, `--tls-self-signed`.
    struct Options: CommandOptions {
        var certificate: String?
        var key: String?
        var selfSigned = false

        static let declarations: [OptionDeclaration<Options>] = [
            .value("--tls-cert", "FILE", help: "serve HTTPS with this PEM certificate (chain); needs --tls-key", \.certificate),
            .value("--tls-key", "FILE", help: "private key (PEM, unencrypted, mode 0600) of --tls-cert", \.key),
            .flag("--tls-self-signed", help: "serve HTTPS with a certificate made once and kept next to the store", \.selfSigned),
        ]
    }

    /// The largest certificate file read: a chain of a few certificates is a few KiB.
    static let certificateLimit = 256 << 10

    /// The TLS setting the options ask for; nil for plain HTTP.
    static func resolve(_ options: Options, root: URL, listen: ListenAddress, command: String) throws -> ServeTLS? {
        try options.exclusive(\.certificate, \.selfSigned, command: command)
        try options.exclusive(\.key, \.selfSigned, command: command)
        if options.selfSigned { return try selfSigned(root: root, listen: listen) }
        let cert = options.certificate, key = options.key
        guard cert != nil || key != nil else { return nil }
        guard let cert, let key else {
            throw UsageError.invalid(command: command, message: "options '\(Options.name(\.certificate))' and '\(Options.name(\.key))' go together")
        }
        let certificatePEM = try readCertificate(cert)
        let keyPEM: String
        do {
            keyPEM = String(decoding: try PrivateFiles.readSecret(key), as: UTF8.self)
        } catch {
            throw CommandFailure("TLS key file \(error)")
        }
        return try make(certificatePEM: certificatePEM, keyPEM: keyPEM, certificatePath: cert, keyPath: key,
                        source: "certificate \(cert)")
    }

    /// `<store>.tls-cert.pem` and `<store>.tls-key.pem`, beside the store's token file.
    static func selfSignedFiles(forStore store: URL) -> (certificate: URL, key: URL) {
        let folder = store.deletingLastPathComponent(), name = store.lastPathComponent
        return (folder.appendingPathComponent(name + ".tls-cert.pem"), folder.appendingPathComponent(name + ".tls-key.pem"))
    }

    /// Loads the store's self-signed certificate, making it on first use. The key is written first, with its
    /// final mode, and the certificate after it; a later start needs both.
    private static func selfSigned(root: URL, listen: ListenAddress) throws -> ServeTLS {
        let files = selfSignedFiles(forStore: root)
        let fm = FileManager.default
        var note = "(from \(files.certificate.path))"
        if !fm.fileExists(atPath: files.key.path) && !fm.fileExists(atPath: files.certificate.path) {
            let made: SelfSignedCertificate
            do { made = try SelfSignedCertificate.make(names: certificateNames(listen: listen)) } catch { throw CommandFailure("\(error)") }
            do {
                if try AtomicFile.createNew(files.key.path, with: Array(made.keyPEM.utf8)) {
                    _ = try AtomicFile.createNew(files.certificate.path, with: Array(made.certificatePEM.utf8))
                    note = "(new; saved in \(files.certificate.path))"
                }
            } catch {
                throw CommandFailure("cannot save the self-signed certificate: \(error)")
            }
        }
        guard fm.fileExists(atPath: files.certificate.path) else {
            throw CommandFailure("the self-signed key \(files.key.path) has no certificate beside it; delete the key to make a new pair")
        }
        let keyPEM: String
        do { keyPEM = String(decoding: try PrivateFiles.readSecret(files.key.path), as: UTF8.self) } catch {
            throw CommandFailure("TLS key file \(error)")
        }
        return try make(certificatePEM: try readCertificate(files.certificate.path), keyPEM: keyPEM,
                        certificatePath: files.certificate.path, keyPath: files.key.path,
                        source: "self-signed certificate \(note)")
    }

    private static func make(certificatePEM: String, keyPEM: String, certificatePath: String, keyPath: String,
                             source: String) throws -> ServeTLS {
        let digests: CertificateDigests
        do { digests = try CertificateDigests(pem: certificatePEM) } catch {
            throw CommandFailure("TLS certificate \(certificatePath): \(error)")
        }
        guard CertificateDigests.keyMatches(certificatePEM: certificatePEM, keyPEM: keyPEM) else {
            throw CommandFailure("TLS key \(keyPath) is not an unencrypted PEM private key of the certificate \(certificatePath)")
        }
        return ServeTLS(identity: TLSIdentity(certificatePEM: certificatePEM, keyPEM: keyPEM), digests: digests, source: source)
    }

    /// localhost and the loopback addresses, the listen address unless it is a wildcard, and this machine's name.
    static func certificateNames(listen: ListenAddress) -> [String] {
        var names = ["localhost", "127.0.0.1", "::1"]
        if !["0.0.0.0", "::"].contains(listen.host), SelfSignedCertificate.isUsableName(listen.host) { names.append(listen.host) }
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count - 1) == 0 {
            let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if SelfSignedCertificate.isUsableName(host) { names.append(host) }
        }
        return names
    }

    private static func readCertificate(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure("cannot read TLS certificate \(path): \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        let data: Data
        do { data = try handle.read(upToCount: certificateLimit + 1) ?? Data() } catch {
            throw CommandFailure("cannot read TLS certificate \(path): \(error)")
        }
        guard data.count <= certificateLimit else { throw CommandFailure("TLS certificate \(path) is larger than \(certificateLimit) bytes") }
        return String(decoding: data, as: UTF8.self)
    }

    /// Lines printed at start: where the certificate is from, its fingerprint and the pin clients take.
    var startLines: [String] {
        [
            "  tls:   \(source)",
            "  sha256 fingerprint: \(digests.fingerprint)",
            "  pin:   --pin-sha256 \(digests.pin)",
        ]
    }
}

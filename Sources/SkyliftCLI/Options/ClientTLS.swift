import Foundation
import SkyliftHTTPClient

/// `--ca-cert FILE` and `--pin-sha256 PIN`: how `upload`, `copy`, `watch` and `proxy` trust an HTTPS server
/// whose certificate no system CA signed, such as `skylift serve --tls-self-signed`.
struct ClientTLS: CommandOptions {
    var caCert: String?
    var pin: String?

    static let declarations: [OptionDeclaration<ClientTLS>] = [
        .value("--ca-cert", "FILE", help: "trust an HTTPS server whose certificate is in FILE (PEM) or signed by one there", \.caCert),
        .value("--pin-sha256", "PIN", help: "trust the HTTPS server with this public key, as 'serve' prints (sha256//BASE64)", \.pin),
    ]

    /// The trust the options ask for; nil when neither option is given.
    func trust(command: String) throws -> TLSTrust? {
        try exclusive(\.caCert, \.pin, command: command)
        if let file = caCert {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw CommandFailure("CA certificate file \(file) cannot be read")
            }
            return TLSTrust(caFile: file)
        }
        guard let raw = pin else { return nil }
        let base64 = raw.hasPrefix("sha256//") ? String(raw.dropFirst(8)) : raw
        guard let digest = Data(base64Encoded: base64), digest.count == 32 else {
            throw UsageError.badValue(command: command, option: Self.name(\.pin), value: raw,
                                      expected: "sha256// and the base64 SHA-256 of the public key, as 'skylift serve' prints it")
        }
        return TLSTrust(pinnedPublicKey: "sha256//" + digest.base64EncodedString())
    }
}

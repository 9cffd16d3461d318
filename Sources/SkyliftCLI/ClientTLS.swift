import Foundation
import HTTPClient

/// `--ca-cert FILE` and `--pin-sha256 PIN`: how `upload`, `copy`, `watch` and `proxy` trust an HTTPS server
/// whose certificate no system CA signed, such as `skylift serve --tls-self-signed`.
enum ClientTLS {
    static let options = [
        OptionSpec("--ca-cert", "FILE", help: "trust an HTTPS server whose certificate is in FILE (PEM) or signed by one there"),
        OptionSpec("--pin-sha256", "PIN", help: "trust the HTTPS server with this public key, as 'serve' prints (sha256//BASE64)"),
    ]

    /// The trust the arguments ask for; nil when neither option is given.
    static func trust(_ arguments: ParsedArguments, command: String) throws -> TLSTrust? {
        try arguments.exclusive(["--ca-cert", "--pin-sha256"])
        if let file = arguments.value("--ca-cert") {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw CommandFailure("CA certificate file \(file) cannot be read")
            }
            return TLSTrust(caFile: file)
        }
        guard let raw = arguments.value("--pin-sha256") else { return nil }
        let base64 = raw.hasPrefix("sha256//") ? String(raw.dropFirst(8)) : raw
        guard let digest = Data(base64Encoded: base64), digest.count == 32 else {
            throw UsageError.badValue(command: command, option: "--pin-sha256", value: raw,
                                      expected: "sha256// and the base64 SHA-256 of the public key, as 'skylift serve' prints it")
        }
        return TLSTrust(pinnedPublicKey: "sha256//" + digest.base64EncodedString())
    }
}

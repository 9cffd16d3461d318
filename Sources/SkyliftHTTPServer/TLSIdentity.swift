/// What a server needs to speak HTTPS: its certificate (chain) and private key, both PEM text.
///
/// The key stays in memory only as long as the configuration holding it; nothing here writes it anywhere.
public struct TLSIdentity: Sendable, Equatable {
    /// The server certificate, optionally followed by intermediates, PEM.
    public var certificatePEM: String
    /// The unencrypted private key matching the certificate, PEM (PKCS#8 or traditional).
    public var keyPEM: String

    public init(certificatePEM: String, keyPEM: String) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }
}

/// How a client decides to trust a server's certificate beyond the system's CA list: a CA (or the server's
/// own self-signed certificate) in a PEM file, or a pinned public key.
public struct TLSTrust: Sendable, Equatable {
    /// PEM file of certificates to verify the server against, instead of the system's CA list.
    public var caFile: String?
    /// `sha256//<base64>` of the server certificate's SubjectPublicKeyInfo. The connection is accepted when
    /// the key matches, whatever CA signed the certificate and whatever names it carries, and refused
    /// before any request byte is sent when it does not.
    public var pinnedPublicKey: String?

    public init(caFile: String? = nil, pinnedPublicKey: String? = nil) {
        self.caFile = caFile
        self.pinnedPublicKey = pinnedPublicKey
    }
}

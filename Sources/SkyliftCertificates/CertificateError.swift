/// Why a certificate could not be made or read.
public enum CertificateError: Error, Sendable, Equatable, CustomStringConvertible {
    case generation(String)
    case unreadableCertificate

    public var description: String {
        switch self {
        case let .generation(reason): "cannot make a self-signed certificate: \(reason)"
        case .unreadableCertificate: "no PEM certificate could be read"
        }
    }
}

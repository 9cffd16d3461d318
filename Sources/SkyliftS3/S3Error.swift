import Foundation

/// Why an S3 operation failed. Never carries credentials, signatures or header values.
public enum S3Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bad settings or input: a location, an endpoint, missing credentials.
    case configuration(String)
    /// The service answered with an error document (or a bare status for HEAD).
    case service(status: Int, code: String, message: String, resource: String)
    /// The service answered something this client cannot use.
    case invalidResponse(resource: String, reason: String)
    /// Local state (the multipart resume file) could not be read or written.
    case state(path: String, reason: String)

    /// The HTTP status of a service error.
    public var status: Int? {
        if case let .service(status, _, _, _) = self { return status }
        return nil
    }

    /// The S3 error code (`NoSuchKey`, `SignatureDoesNotMatch`, …), if the service sent one.
    public var code: String? {
        if case let .service(_, code, _, _) = self { return code }
        return nil
    }

    /// One line for people: code, status, resource and a hint for common mistakes.
    public var description: String {
        switch self {
        case let .configuration(text):
            return text
        case let .service(status, code, message, resource):
            let hint: String
            switch code {
            case "SignatureDoesNotMatch": hint = ": the secret access key does not match the access key ID"
            case "InvalidAccessKeyId": hint = ": the access key ID is unknown to this endpoint"
            case "RequestTimeTooSkewed": hint = ": this machine's clock differs too much from the server's; fix the clock"
            case "NoSuchBucket": hint = ": the bucket does not exist"
            case "AccessDenied": hint = ": the credentials are not allowed to do this"
            default: hint = ""
            }
            let detail = message.isEmpty ? "" : " (\(message))"
            return "S3 \(code) (HTTP \(status)) for \(resource)\(hint)\(detail)"
        case let .invalidResponse(resource, reason):
            return "unusable S3 response for \(resource): \(reason)"
        case let .state(path, reason):
            return "upload state \(path): \(reason)"
        }
    }

    /// The body did not match the digest it was signed or declared with (bytes damaged on the way): the part is
    /// sent again, read from its source anew. Ceph RGW checks these two where it ignores `x-amz-checksum-sha256`.
    public var isDamagedBody: Bool { ["BadDigest", "XAmzContentSHA256Mismatch"].contains(code ?? "") }

    /// Throttling or trouble on the service's side: worth another attempt after a backoff (the engine's).
    public var isTransient: Bool {
        guard case let .service(status, code, _, _) = self else { return false }
        return status >= 500 || ["SlowDown", "RequestTimeout", "InternalError"].contains(code)
    }
}

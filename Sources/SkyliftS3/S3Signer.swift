import Foundation
import SkyliftHashing
import SkyliftCore

/// AWS Signature Version 4 for S3 requests, on libcrypto's SHA-256 and HMAC.
public struct S3Signer: Sendable {
    /// The keys that sign.
    public let credentials: S3Credentials
    /// The region in the signature's scope.
    public let region: String
    /// The service in the signature's scope: always `s3`.
    public let service = "s3"

    /// A signer for `credentials` in `region`.
    public init(credentials: S3Credentials, region: String) {
        self.credentials = credentials
        self.region = region
    }

    /// SHA-256 of no bytes, the payload hash of bodiless requests.
    public static let emptyPayloadHash = Digest.hash(.sha256, [UInt8]()).hexString
    /// Payload hash that leaves a streamed body out of the signature.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// Adds `x-amz-date`, `x-amz-content-sha256`, the session token and `Authorization` to `headers`.
    ///
    /// - Parameters:
    ///   - method: the request method.
    ///   - host: the `Host` header value (with a non-default port).
    ///   - encodedPath: the request path exactly as sent, already percent-encoded with `S3Signer.encode`.
    ///   - query: query items, not yet encoded.
    ///   - headers: the headers to send; every one of them is signed.
    ///   - payloadHash: hex SHA-256 of the body, or `unsignedPayload`.
    ///   - date: the signing time (`x-amz-date`).
    public func sign(method: String, host: String, encodedPath: String, query: [(String, String)],
              headers: inout HTTPHeaders, payloadHash: String, date: Date) {
        let (amzDate, day) = Self.timestamps(date)
        headers.set("host", host)
        headers.set("x-amz-date", amzDate)
        headers.set("x-amz-content-sha256", payloadHash)
        if let token = credentials.sessionToken { headers.set("x-amz-security-token", token) }

        var byName: [String: [String]] = [:]
        for field in headers {
            let value = field.value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            byName[field.name.lowercased(), default: []].append(value)
        }
        let names = byName.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(byName[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let encodedQuery: [(name: String, value: String)] = query.map {
            (name: Self.encode($0.0, keepSlash: false), value: Self.encode($0.1, keepSlash: false))
        }
        let sortedQuery = encodedQuery.sorted { a, b in a.name == b.name ? a.value < b.value : a.name < b.name }
        let canonicalQuery = sortedQuery.map { item in item.name + "=" + item.value }.joined(separator: "&")
        let canonicalRequest = [method, encodedPath, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash]
            .joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Digest.hash(.sha256, Array(canonicalRequest.utf8)).hexString]
            .joined(separator: "\n")
        var key = HMAC.sha256(key: Array("AWS4\(credentials.secretAccessKey)".utf8), message: Array(day.utf8))
        for part in [region, service, "aws4_request"] { key = HMAC.sha256(key: key, message: Array(part.utf8)) }
        let signature = HMAC.sha256(key: key, message: Array(stringToSign.utf8)).hexString
        headers.set("Authorization",
                    "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)")
    }

    /// `x-amz-date` (`yyyyMMdd'T'HHmmss'Z'`) and the scope's day (`yyyyMMdd`), in UTC.
    static func timestamps(_ date: Date) -> (amzDate: String, day: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let day = "\(c.year ?? 1970)\(two(c.month))\(two(c.day))"
        return ("\(day)T\(two(c.hour))\(two(c.minute))\(two(c.second))Z", day)
    }

    /// Percent-encodes as SigV4 requires: everything but `A-Z a-z 0-9 - . _ ~` (and `/` when `keepSlash`),
    /// byte by byte of the UTF-8 form, with upper-case hex.
    public static func encode(_ text: String, keepSlash: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                out.append("/")
            default:
                let hex = Array("0123456789ABCDEF")
                out.append("%")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}

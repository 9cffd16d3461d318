/// A bucket and key prefix written `s3://bucket/prefix/`.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// The bucket's name.
    public var bucket: String
    /// The key prefix: empty for the whole bucket; objects go to `prefix + name`.
    public var prefix: String

    /// The location of `prefix` (empty for the whole bucket) in `bucket`.
    public init(bucket: String, prefix: String = "") {
        self.bucket = bucket
        self.prefix = prefix
    }

    /// Parses `s3://bucket`, `s3://bucket/`, `s3://bucket/some/prefix/`. Keys are taken literally (no
    /// percent-decoding), as the AWS CLI does.
    public init(parsing text: String) throws {
        guard text.hasPrefix("s3://") else {
            throw S3Error.configuration("\(text.debugDescription) is not an s3:// location")
        }
        let rest = text.dropFirst("s3://".count)
        let bucket = rest.prefix { $0 != "/" }
        guard Self.isValidBucket(String(bucket)) else {
            throw S3Error.configuration("\(text.debugDescription) has no valid bucket name (3–63 characters: a-z, 0-9, '.', '-')")
        }
        self.bucket = String(bucket)
        self.prefix = String(rest.dropFirst(bucket.count + 1))
    }

    /// The object key for `name` under this location.
    public func key(for name: String) -> String { prefix + name }

    /// `s3://bucket/prefix`.
    public var description: String { "s3://\(bucket)/\(prefix)" }

    static func isValidBucket(_ name: String) -> Bool {
        (3...63).contains(name.count) && name.allSatisfy { $0.isLowercase && $0.isASCII || $0.isNumber && $0.isASCII || $0 == "." || $0 == "-" || $0 == "_" }
    }
}

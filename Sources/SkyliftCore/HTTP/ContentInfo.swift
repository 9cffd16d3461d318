import Foundation

/// What is known about a resource's current representation.
public struct ContentInfo: Hashable, Sendable {
    /// Length in bytes, when known.
    public var length: Int64?
    /// Media type, e.g. `video/mp4`.
    public var contentType: String?
    /// Entity tag as sent (quotes included, `W/` prefix kept for weak tags).
    public var etag: String?
    /// Last modification time.
    public var lastModified: Date?

    public init(length: Int64? = nil, contentType: String? = nil, etag: String? = nil, lastModified: Date? = nil) {
        self.length = length
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
    }
}

extension ContentInfo {
    /// The validators conditional requests are evaluated against.
    public var validators: ConditionalRequest.Validators { .init(etag: etag, lastModified: lastModified) }
}

/// A JPEG thumbnail and the name it is cached under (a hex string that changes with the file and the size:
/// the basis of its entity tag).
public struct Thumbnail: Sendable {
    /// The JPEG file's bytes.
    public let jpeg: [UInt8]
    /// 40 hex digits naming the thumbnail (its cache entry), the same for the same key and size.
    public let tag: String
}

/// The thumbnail sizes served: the longer side of the picture, in pixels. Three sizes only, so a gallery's
/// requests share cache entries and a client cannot make the server render (and store) any size it likes.
public enum ThumbnailSize: Int, Sendable, CaseIterable, Comparable {
    /// 128 pixels.
    case small = 128
    /// 256 pixels.
    case medium = 256
    /// 512 pixels.
    case large = 512

    /// The size a query value names (`"128"`, `"256"`, `"512"`); nil for anything else.
    public init?(text: Substring) {
        guard text.count <= 3, let value = Int(text), let size = ThumbnailSize(rawValue: value) else { return nil }
        self = size
    }

    /// The longer side in pixels.
    public var pixels: Int { rawValue }

    /// Smaller first.
    public static func < (a: ThumbnailSize, b: ThumbnailSize) -> Bool { a.rawValue < b.rawValue }
}

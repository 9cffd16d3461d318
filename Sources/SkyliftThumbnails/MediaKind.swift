/// What a file is for the thumbnail maker, judged by its name's extension (as the listing's types are):
/// a still image libvips decodes, a video ffmpeg takes a poster frame from, or neither.
public enum MediaKind: Sendable, Equatable {
    /// A still image (its first frame, for GIF and multi-page files).
    case image
    /// A video: its thumbnail is a poster frame.
    case video

    /// Image formats whose loaders the maker leaves enabled (see ``Thumbnailer``): JPEG, PNG, WebP, GIF, TIFF,
    /// HEIC/HEIF (and AVIF, which libheif reads too).
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "jpe", "png", "webp", "gif", "tif", "tiff", "heic", "heif", "avif"]
    /// Containers ffmpeg reads a first frame from.
    static let videoExtensions: Set<String> = ["mp4", "m4v", "mov", "webm", "mkv", "avi", "3gp", "mpg", "mpeg", "ts", "mts", "m2ts", "ogv", "wmv"]

    /// The kind of a file named `name`; nil for a file that is neither an image nor a video.
    public init?(name: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        if Self.imageExtensions.contains(ext) {
            self = .image
        } else if Self.videoExtensions.contains(ext) {
            self = .video
        } else {
            return nil
        }
    }
}

/// Why no thumbnail could be made.
public enum ThumbnailError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libvips (or ffmpeg's frame) could not be decoded: not an image of an enabled format, damaged, or
    /// refused by a limit; `reason` is the decoder's message, trimmed.
    case undecodable(reason: String)
    /// The picture has more pixels than ``ThumbnailOptions/maxPixels``.
    case tooLarge(width: Int, height: Int)
    /// No `ffmpeg` program was found for a video's poster frame.
    case noVideoDecoder
    /// ffmpeg ran longer than ``ThumbnailOptions/posterTimeout`` and was stopped.
    case timedOut(seconds: Double)
    /// libvips could not be started.
    case unavailable(reason: String)

    /// The reason in a sentence, for logs and error answers.
    public var description: String {
        switch self {
        case let .undecodable(reason): "cannot decode the file: \(reason)"
        case let .tooLarge(w, h): "the picture is too large (\(w)×\(h) pixels)"
        case .noVideoDecoder: "poster frames need the ffmpeg program, which was not found"
        case let .timedOut(seconds): "the poster frame took longer than \(Int(seconds)) s"
        case let .unavailable(reason): "libvips is not available: \(reason)"
        }
    }
}

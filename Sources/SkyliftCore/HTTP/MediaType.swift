/// Content-Type by file extension, for the few dozen types media tools meet.
public enum MediaType {
    private static let byExtension: [String: String] = [
        "txt": "text/plain; charset=utf-8", "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css", "js": "text/javascript", "json": "application/json", "xml": "application/xml",
        "csv": "text/csv", "md": "text/markdown; charset=utf-8", "pdf": "application/pdf",
        "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "heif": "image/heif", "avif": "image/avif", "svg": "image/svg+xml",
        "tif": "image/tiff", "tiff": "image/tiff", "bmp": "image/bmp", "dng": "image/x-adobe-dng",
        "mp4": "video/mp4", "m4v": "video/x-m4v", "mov": "video/quicktime", "mkv": "video/x-matroska",
        "webm": "video/webm", "avi": "video/x-msvideo", "ts": "video/mp2t", "m3u8": "application/vnd.apple.mpegurl",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "flac": "audio/flac", "wav": "audio/wav",
        "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/opus",
    ]

    /// The media type for a file name, `application/octet-stream` when unknown.
    public static func forPath(_ path: String) -> String {
        // On the UTF-8 bytes, no Character view, no lowercased copy unless the extension is not lowercase: this runs
        // for every GET.
        let utf8 = path.utf8
        guard let dot = utf8.lastIndex(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "/") }),
              utf8[dot] == UInt8(ascii: ".") else { return "application/octet-stream" }
        let ext = Substring(path.utf8[utf8.index(after: dot)...])
        return byExtension[String(ext)] ?? byExtension[ext.lowercased()] ?? "application/octet-stream"
    }
}

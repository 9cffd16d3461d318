import Foundation
import TestPrograms

/// Real pictures and videos for the thumbnail tests, made by ffmpeg (from its built-in `color` and `testsrc`
/// sources), with EXIF written into JPEGs here: an orientation and a capture date.
public enum TestMedia {
    /// Why a test file could not be made.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A `width`×`height` still of one colour (`color` as ffmpeg names them: `red`, `0x336699`, `blue@0.5` with
    /// alpha for PNG with `pixelFormat` `rgba`), in the format `url`'s extension names.
    public static func still(_ url: URL, width: Int, height: Int, color: String = "red", pixelFormat: String? = nil) throws {
        // The pixel format as a filter of the source: as an output option, ffmpeg drops the colour's alpha.
        let source = "color=c=\(color):s=\(width)x\(height)" + (pixelFormat.map { ",format=\($0)" } ?? "")
        try ffmpeg(["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source, "-frames:v", "1", "-update", "1", url.path])
    }

    /// The picture at `source` converted by the `vips` program to the format `url`'s extension names (HEIC, which
    /// ffmpeg does not write).
    public static func convert(_ source: URL, to url: URL) throws {
        let (status, _) = try runForOutput(try TestPrograms.path("vips"), ["copy", source.path, url.path])
        guard status == 0 else { throw Failure(description: "vips copy \(source.path) \(url.path) exited \(status)") }
    }

    /// A test-pattern video of `seconds` seconds, `width`×`height`, H.264 in MP4.
    public static func video(_ url: URL, width: Int, height: Int, seconds: Double) throws {
        try ffmpeg(["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=25:duration=\(seconds)",
                    "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", url.path])
    }

    /// A large test-pattern video made fast: uncompressed frames in a QuickTime file (about 610 KB a frame at
    /// 640×480), its index (`moov`) written at the end, as cameras and ffmpeg do by default.
    public static func rawVideo(_ url: URL, width: Int, height: Int, seconds: Double) throws {
        try ffmpeg(["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=25:duration=\(seconds)",
                    "-c:v", "rawvideo", "-pix_fmt", "uyvy422", "-f", "mov", url.path])
    }

    private static func ffmpeg(_ args: [String]) throws {
        let (status, _) = try runForOutput(try TestPrograms.path("ffmpeg"), args)
        guard status == 0 else { throw Failure(description: "ffmpeg \(args.joined(separator: " ")) exited \(status)") }
    }

    /// The JPEG at `url` with an EXIF segment put right after its start marker: `orientation` (1–8) and, when
    /// given, `taken` as DateTimeOriginal (`"2024:05:01 10:00:00"`).
    public static func addEXIF(_ url: URL, orientation: UInt16 = 1, taken: String? = nil) throws {
        var jpeg = Array(try Data(contentsOf: url))
        guard jpeg.count > 2, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw Failure(description: "\(url.path) is not a JPEG") }
        let tiff = exifTIFF(orientation: orientation, taken: taken)
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = UInt16(payload.count + 2)
        jpeg.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
        try Data(jpeg).write(to: url)
    }

    /// A big-endian TIFF block: IFD0 with Orientation (and a pointer to the Exif IFD), the Exif IFD with
    /// DateTimeOriginal.
    private static func exifTIFF(orientation: UInt16, taken: String?) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func entry(_ tag: UInt16, _ type: UInt16, _ count: UInt32, _ value: [UInt8]) -> [UInt8] { u16(tag) + u16(type) + u32(count) + value }
        var out = Array("MM".utf8) + u16(42) + u32(8)
        let entries: UInt16 = taken == nil ? 1 : 2
        out += u16(entries) + entry(0x0112, 3, 1, u16(orientation) + [0, 0])
        guard let taken else { return out + u32(0) }
        let exifIFD = UInt32(8 + 2 + 12 * 2 + 4)
        out += entry(0x8769, 4, 1, u32(exifIFD)) + u32(0)
        let text = Array(taken.utf8) + [0]
        out += u16(1) + entry(0x9003, 2, UInt32(text.count), u32(exifIFD + 2 + 12 + 4)) + u32(0) + text
        return out
    }

    /// Width and height from a JPEG's first start-of-frame marker; nil when there is none.
    public static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var i = 2
        while i + 9 < bytes.count {
            guard bytes[i] == 0xFF else { return nil }
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0 ... 0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                return (Int(bytes[i + 7]) << 8 | Int(bytes[i + 8]), Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]))
            }
            i += 2 + length
        }
        return nil
    }
}

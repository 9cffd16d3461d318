import Foundation
import SkyliftSystem
import SkyliftThumbnails
import Testing
import TestProbes
import TestPrograms

/// Thumbnails of real files made by ffmpeg: sizes, orientation, formats, poster frames, refusals, the limit on pixels.
@Suite struct ThumbnailerTests {
    let scratch: TempFolder
    let maker: Thumbnailer

    init() throws {
        scratch = try TempFolder("thumbs")
        maker = try Thumbnailer(options: ThumbnailOptions(cacheFolder: scratch.appending("cache").path))
    }

    func thumbnail(_ url: URL, _ size: ThumbnailSize, by maker: Thumbnailer? = nil, key: String? = nil) throws -> Result<Thumbnail, ThumbnailError> {
        let fd = try FileDescriptor.open(url.path, .readOnly)
        defer { fd.close() }
        let kind = try #require(MediaKind(name: url.lastPathComponent))
        return (maker ?? self.maker).thumbnail(of: fd, kind: kind, key: key ?? url.path, size: size)
    }

    @Test func jpegTurnedByItsOrientationAndSizedByTheLongerSide() throws {
        let url = scratch.appending("wide.jpg")
        try TestMedia.still(url, width: 400, height: 200)
        try TestMedia.addEXIF(url, orientation: 6) // stored landscape, shown turned a quarter: portrait
        let thumb = try thumbnail(url, .medium).get()
        let size = try #require(TestMedia.jpegSize(thumb.jpeg))
        #expect(size.width == 128 && size.height == 256, "\(size)")
        let plain = scratch.appending("plain.jpg")
        try TestMedia.still(plain, width: 400, height: 200)
        let unturned = try #require(TestMedia.jpegSize(try thumbnail(plain, .large).get().jpeg))
        #expect(unturned.width == 512 && unturned.height == 256, "\(unturned)")
    }

    @Test(arguments: ["png", "webp", "gif", "tiff"])
    func otherFormats(_ ext: String) throws {
        let url = scratch.appending("pic.\(ext)")
        // RGB for TIFF: libvips reads no chroma-subsampled TIFF, which is what ffmpeg writes by default.
        try TestMedia.still(url, width: 300, height: 600, color: "0x336699", pixelFormat: ext == "tiff" ? "rgb24" : nil)
        let size = try #require(TestMedia.jpegSize(try thumbnail(url, .small).get().jpeg))
        #expect(size.width == 64 && size.height == 128, "\(ext): \(size)")
    }

    @Test func heic() throws {
        let png = scratch.appending("tall.png")
        try TestMedia.still(png, width: 300, height: 600, color: "0x993366")
        let url = scratch.appending("tall.heic")
        try TestMedia.convert(png, to: url)
        let size = try #require(TestMedia.jpegSize(try thumbnail(url, .medium).get().jpeg))
        #expect(size.width == 128 && size.height == 256, "\(size)")
    }

    @Test func transparentPNGIsLaidOnWhite() throws {
        let url = scratch.appending("clear.png")
        try TestMedia.still(url, width: 200, height: 200, color: "black@0.0", pixelFormat: "rgba")
        let thumb = try thumbnail(url, .small).get()
        #expect(TestMedia.jpegSize(thumb.jpeg).map { $0.width == 128 && $0.height == 128 } == true)
        // Decoded by ffmpeg back to one grey value: white, not black, where the picture was clear.
        let back = scratch.appending("clear-thumb.jpg")
        try Data(thumb.jpeg).write(to: back)
        let gray = scratch.appending("gray.raw")
        _ = try runForOutput(try TestPrograms.path("ffmpeg"), ["-loglevel", "error", "-y", "-i", back.path, "-vf", "scale=1:1", "-f", "rawvideo", "-pix_fmt", "gray", gray.path])
        let value = try Data(contentsOf: gray).first ?? 0
        #expect(value > 240, "grey \(value)")
    }

    @Test func videoPosterFrame() throws {
        let url = scratch.appending("clip.mp4")
        try TestMedia.video(url, width: 320, height: 240, seconds: 2)
        let size = try #require(TestMedia.jpegSize(try thumbnail(url, .medium).get().jpeg))
        #expect(size.width == 256 && size.height == 192, "\(size)")
        // Shorter than the second the frame is taken at: the first frame instead.
        let short = scratch.appending("short.mp4")
        try TestMedia.video(short, width: 240, height: 320, seconds: 0.2)
        let shortSize = try #require(TestMedia.jpegSize(try thumbnail(short, .small).get().jpeg))
        #expect(shortSize.width == 96 && shortSize.height == 128, "\(shortSize)")
    }

    @Test func aPosterFrameThatNeverComesIsKilledAtTheTimeLimit() throws {
        // A stand-in for an ffmpeg stuck on a hostile file: it stops itself and would never exit.
        let stuck = scratch.appending("stuck-ffmpeg")
        try Data("#!\(try TestPrograms.path("bash").path)\nkill -STOP $$\n".utf8).write(to: stuck)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stuck.path)
        var options = ThumbnailOptions(cacheFolder: scratch.appending("stuck-cache").path)
        options.ffmpeg = stuck.path
        options.posterTimeout = 1
        let maker = try Thumbnailer(options: options)
        let url = scratch.appending("any.mp4")
        try Data(repeating: 0, count: 100).write(to: url)
        guard case .failure(.timedOut(1)) = try thumbnail(url, .small, by: maker) else { Issue.record("not stopped at the limit"); return }
        #expect(maker.counters.running == 0)
    }

    @Test func garbageIsUndecodable() throws {
        let url = scratch.appending("fake.jpg")
        try Data("this is text, not a picture\n".utf8).write(to: url)
        guard case .failure(.undecodable) = try thumbnail(url, .small) else { Issue.record("text decoded as a picture"); return }
        let video = scratch.appending("fake.mp4")
        try Data(repeating: 0x42, count: 5000).write(to: video)
        guard case .failure(.undecodable) = try thumbnail(video, .small) else { Issue.record("junk decoded as a video"); return }
        #expect(maker.counters.made == 0)
        // Asked again, the same content is refused from memory: no second decode is queued.
        guard case .failure(.undecodable) = try thumbnail(url, .small) else { Issue.record("decoded the second time"); return }
        #expect(maker.counters.failed == 2, "\(maker.counters)")
    }

    @Test func picturesAboveThePixelLimitAreRefusedFromTheirHeader() throws {
        var options = ThumbnailOptions(cacheFolder: scratch.appending("small-cache").path)
        options.maxPixels = 100 * 100
        let strict = try Thumbnailer(options: options)
        let url = scratch.appending("big.png")
        try TestMedia.still(url, width: 200, height: 100)
        guard case .failure(.tooLarge(200, 100)) = try thumbnail(url, .small, by: strict) else { Issue.record("not refused"); return }
        let fits = scratch.appending("fits.png")
        try TestMedia.still(fits, width: 100, height: 100)
        #expect((try? thumbnail(fits, .small, by: strict).get()) != nil)
    }

    @Test func exifCaptureDate() throws {
        let url = scratch.appending("dated.jpg")
        try TestMedia.still(url, width: 64, height: 48)
        try TestMedia.addEXIF(url, orientation: 1, taken: "2021:07:14 08:30:05")
        let fd = try FileDescriptor.open(url.path, .readOnly)
        defer { fd.close() }
        #expect(maker.takenDate(of: fd) == Date(timeIntervalSince1970: 1_626_251_405))
        let plain = scratch.appending("undated.jpg")
        try TestMedia.still(plain, width: 64, height: 48)
        let other = try FileDescriptor.open(plain.path, .readOnly)
        defer { other.close() }
        #expect(maker.takenDate(of: other) == nil)
    }

    @Test func photoDateText() {
        #expect(PhotoDate.parse("2024:05:01 10:00:00 (2024:05:01 10:00:00, ASCII, 20 components, 20 bytes)")
            == Date(timeIntervalSince1970: 1_714_557_600))
        #expect(PhotoDate.parse("2024:05:01 10:00:00", offset: "+02:00 (+02:00, ASCII, 7 components, 7 bytes)")
            == Date(timeIntervalSince1970: 1_714_557_600 - 7200))
        for bad in ["0000:00:00 00:00:00", "2023:02:29 10:00:00", "2024:13:01 00:00:00", "2024:05:01 24:00:00", "2024-05-01 10:00:00",
                    "", "    :  :     :  :  ", "2024:05:01 10:00:0x"] {
            #expect(PhotoDate.parse(bad) == nil, "\(bad)")
        }
        #expect(PhotoDate.parse("2024:05:01 10:00:00", offset: "+15:00") == nil)
    }
}

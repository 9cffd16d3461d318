import Foundation
import Testing
import TestPrograms

/// A real player from Debian decoding through the proxy must see exactly what it sees in the local file.
@Suite struct PlayerDecodeTests {
    @Test func ffmpegDecodesThroughTheProxyLikeTheLocalFile() async throws {
        let f = try ProxyFixture()
        let media = f.root.appendingPathComponent("clip.mp4")
        // Three seconds of test pattern and tone; mp4 without faststart, so the index sits at the end and the
        // player has to seek there and back.
        let made = try await offPool {
            try run(TestPrograms.path("ffmpeg"), ["-v", "error", "-f", "lavfi", "-i", "testsrc=duration=3:size=320x240:rate=25",
                               "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:v", "mpeg4", "-q:v", "5",
                               "-c:a", "aac", "-shortest", media.path])
        }
        try #require(made.status == 0, "ffmpeg (Debian package ffmpeg) could not make test media: \(made.err)")

        func decode(_ input: String) async throws -> Ran {
            try await offPool { try run(TestPrograms.path("ffmpeg"), ["-v", "error", "-i", input, "-f", "framemd5", "-"]) }
        }
        let local = try await decode(media.path)
        let proxied = try await decode(f.url("clip.mp4"))
        #expect(local.status == 0)
        #expect(proxied.status == 0, "\(proxied.err)")
        #expect(local.text.contains("0,") && local.text.contains("1,"))
        #expect(proxied.text == local.text)

        let probe = try await offPool {
            try run(TestPrograms.path("ffprobe"), ["-v", "error", "-show_entries", "format=duration,size:stream=codec_name", "-of", "csv=p=0",
                                f.url("clip.mp4")])
        }
        #expect(probe.status == 0)
        #expect(probe.text.contains("mpeg4") && probe.text.contains("aac"))
        let size = try FileManager.default.attributesOfItem(atPath: media.path)[.size] as? Int
        #expect(probe.text.contains(String(size ?? -1)))

        // A second play comes from the cache: the origin sends nothing more.
        let before = f.originLog.bytesOut
        #expect(try await decode(f.url("clip.mp4")).text == local.text)
        #expect(f.originLog.bytesOut == before)
        #expect(before <= Int64(size ?? 0))
    }
}

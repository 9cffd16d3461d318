import TestPrograms
import Foundation
import Testing

/// The web app in a real headless Chromium (Debian `chromium` + `chromium-driver`, `selenium` from PyPI), driven
/// by Tests/WebAppTests/browser/app_test.py against the real `skylift serve`: sign-in, browse, upload,
/// resume after a reload, video with seeking, image viewer, text/Markdown/PDF previews, grid (windowed, remembered),
/// timeline, search, selection with zip/move/delete, new folder/rename/move/delete in page dialogs, share links
/// made in a dialog (copied, read back from their QR code by zbarimg) and opened in a fresh browser with no
/// cookie, the share list with revoke, sign-out.
@Suite struct WebAppBrowserTests {
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("browser")

    @Test func appInHeadlessChromium() throws {
        let server = try WebAppServer()
        try server.start(quiet: false)
        try Self.prepare(server.root)
        let (status, output) = try Self.drive(server)
        #expect(status == 0, "\(output)")
        for step in ["sign in", "list, open a folder", "upload through the file input", "upload a whole folder", "reload mid-upload resumed",
                     "dropped connection", "upload speed and time left shown",
                     "video plays", "image viewer", "text and Markdown previews", "grid of thumbnails", "3,000 entries",
                     "timeline of a folder tree", "search by name", "select with click, shift-click", "new folder, rename, move, delete", "share links",
                     "share list with expiry", "QR codes", "one-time sign-in link", "sign out"] {
            #expect(output.contains("ok " + step), "missing step \(step): \(output)")
        }
        let log = server.stop()
        // The video was fetched with ranges, on the cookie alone.
        #expect(log.contains("GET /dav/clip.mp4 206"), "\(log)")
        #expect(!log.contains(server.token))
    }

    /// Over HTTPS with the self-signed certificate: Chromium trusts exactly the printed key (SPKI allowlist),
    /// signs in (the cookie must be Secure), lists, uploads through tus and plays the video with ranges.
    @Test func appOverHTTPSInHeadlessChromium() throws {
        let server = try WebAppServer(serveArguments: ["--tls-self-signed"])
        try server.start(quiet: false)
        #expect(server.url.hasPrefix("https://127.0.0.1:") && server.pin.hasPrefix("sha256//"), "\(server.url) \(server.pin)")
        try Self.prepare(server.root)
        let (status, output) = try Self.drive(server, extra: ["SKYLIFT_SPKI": String(server.pin.dropFirst("sha256//".count)),
                                                              "SKYLIFT_STEPS": "sign_in,browse,upload,play"])
        #expect(status == 0, "\(output)")
        for step in ["sign in", "list, open a folder", "upload through the file input", "video plays"] {
            #expect(output.contains("ok " + step), "missing step \(step): \(output)")
        }
        let log = server.stop()
        #expect(log.contains("GET /dav/clip.mp4 206"), "\(log)")
    }

    /// The files the script expects: names with '#', '%', '?', Unicode, a folder, a video and two images.
    static func prepare(_ root: URL) throws {
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("sub dir #1"), withIntermediateDirectories: true)
        try Data("hello\n".utf8).write(to: root.appendingPathComponent("a #%? b.txt"))
        try Data("u\n".utf8).write(to: root.appendingPathComponent("ünïcødé 日本.txt"))
        try Data("inner\n".utf8).write(to: root.appendingPathComponent("sub dir #1/inner?.txt"))
        for (args, out) in [
            (["-f", "lavfi", "-i", "testsrc=duration=4:size=160x120:rate=25", "-f", "lavfi", "-i", "sine=duration=4",
              "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"], "clip.mp4"),
            (["-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1"], "one.png"),
            (["-f", "lavfi", "-i", "smptebars=size=64x48", "-frames:v", "1"], "two.png"),
        ] {
            let (status, log) = try runProgram(try TestPrograms.path("ffmpeg").path, ["-loglevel", "error", "-y"] + args + [root.appendingPathComponent(out).path])
            try #require(status == 0, "ffmpeg: \(log)")
        }
    }

    /// Runs app_test.py against `server` with `extra` environment; its exit status and output.
    static func drive(_ server: WebAppServer, extra: [String: String] = [:]) throws -> (Int32, String) {
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["SKYLIFT_TOKEN"] = server.token
        environment["SKYLIFT_SIGNIN_LINK"] = server.signInLink
        // The script drives these two; looking them up first names their packages when they are missing.
        _ = try TestPrograms.path("chromium")
        _ = try TestPrograms.path("chromedriver")
        environment["SKYLIFT_ZBARIMG"] = try TestPrograms.path("zbarimg").path
        return try runProgram(try TestPrograms.python("selenium").path, [scripts.appendingPathComponent("app_test.py").path,
                                                                         server.url, server.root.path], environment: environment)
    }
}

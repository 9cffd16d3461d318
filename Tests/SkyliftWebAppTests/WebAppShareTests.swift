import Foundation
import TestProbes
import Testing

/// Share links made by `skylift share` (and the app's `POST /api/share`), used against the real serve process.
@Suite struct WebAppShareTests {
    /// Runs `skylift share` on the server's root; its stdout lines.
    private func share(_ server: WebAppServer, _ args: [String]) throws -> (Int32, [String]) {
        let (status, out) = try runProgram(skyliftBinary().path, ["share", "--root", server.root.path, "--url", server.url] + args,
                                           environment: ["PATH": "/usr/bin:/bin"])
        return (status, out.split(separator: "\n").map(String.init))
    }

    private func path(of link: String, _ server: WebAppServer) -> String { String(link.dropFirst(server.url.count)) }

    @Test func fileLinkServesRangesAndNothingElse() throws {
        let server = try WebAppServer()
        let movies = server.root.appendingPathComponent("movies")
        try FileManager.default.createDirectory(at: movies, withIntermediateDirectories: true)
        try Data("0123456789".utf8).write(to: movies.appendingPathComponent("trip #1.mp4"))
        try Data("private".utf8).write(to: server.root.appendingPathComponent("other.txt"))

        let (status, lines) = try share(server, ["/movies/trip #1.mp4", "--expires", "2d"])
        #expect(status == 0, "\(lines)")
        let link = try #require(lines.first)
        #expect(link.hasPrefix(server.url + "/s/") && link.hasSuffix("/trip%20%231.mp4"))
        let p = path(of: link, server)
        let whole = try server.curl(p)
        #expect(whole.status == 200 && whole.text == "0123456789")
        let part = try server.curl(p, ["-r", "2-4"])
        #expect(part.status == 206 && part.text == "234" && part.header("Content-Range") == ["bytes 2-4/10"])
        #expect(part.header("Content-Type") == ["video/mp4"])
        let bare = p.split(separator: "/").prefix(2).joined(separator: "/")  // s/<link>
        #expect(try server.curl("/" + bare, ["-r", "0-0"]).status == 206)

        // No writes, no WebDAV, no parent, no other file, no /dav with the link.
        for method in ["PUT", "DELETE", "PROPFIND", "MOVE", "POST", "PATCH"] {
            #expect(try server.curl(p, ["-X", method, "--data", "x"]).status == 405, "\(method)")
        }
        #expect(try server.curl("/\(bare)/other.txt").status == 404)
        #expect(try server.curl("/\(bare)/../other.txt", ["--path-as-is"]).status == 404)
        #expect(try server.curl("/dav/other.txt").status == 401)
        #expect(try server.curl("/dav/other.txt", ["-H", "Referer: \(link)"]).status == 401)
        #expect(try Data(contentsOf: movies.appendingPathComponent("trip #1.mp4")) == Data("0123456789".utf8))

        // A changed expiry or signature is refused; revoking works by id and is final.
        let token = String(bare.dropFirst(2))
        let parts = token.split(separator: "-")
        let later = "/s/\(parts[0])-\(Int(parts[1])! + 86_400)-\(parts[2])"
        #expect(try server.curl(later).status == 403)
        #expect(try server.curl("/s/\(parts[0])-\(parts[1])-\(String(parts[2].reversed()))").status == 403)
        let (_, listed) = try share(server, ["--list"])
        #expect(listed.count == 1 && listed[0].hasPrefix(String(parts[0])) && listed[0].hasSuffix("/movies/trip #1.mp4"))
        #expect(try share(server, ["--revoke", String(parts[0])]).0 == 0)
        #expect(try server.curl(p).status == 403)
        #expect(try share(server, ["--revoke", String(parts[0])]).0 == 1)
    }

    @Test func expiredLinkIsGone() throws {
        let server = try WebAppServer()
        try Data("x".utf8).write(to: server.root.appendingPathComponent("a.txt"))
        let (_, lines) = try share(server, ["/a.txt", "--expires", "1s"])
        let p = path(of: try #require(lines.first), server)
        // Wait until the expiry written in the link has passed (whole seconds), then one more.
        let expiry = Double(p.split(separator: "-")[1])!
        while Date().timeIntervalSince1970 <= expiry { usleep(100_000) }
        #expect(try server.curl(p).status == 410)
        #expect(try share(server, ["/missing.txt"]).0 == 1)
        #expect(try share(server, ["/../etc/passwd"]).0 == 1)
    }

    @Test func folderLinkShowsTheBrowsePageReadOnly() throws {
        let server = try WebAppServer()
        let shared = server.root.appendingPathComponent("trip ü")
        try FileManager.default.createDirectory(at: shared.appendingPathComponent("day 1"), withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: shared.appendingPathComponent("day 1/a?.txt"))
        try Data("secret".utf8).write(to: server.root.appendingPathComponent("secret.txt"))
        // Links inside the shared folder that lead elsewhere in the store (allowed for the owner) are not followed
        // for the share: not listed, not readable, not zipped. One staying inside the share is.
        try FileManager.default.createSymbolicLink(atPath: shared.appendingPathComponent("up.txt").path, withDestinationPath: "../secret.txt")
        try FileManager.default.createSymbolicLink(atPath: shared.appendingPathComponent("root").path, withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: shared.appendingPathComponent("alias.txt").path, withDestinationPath: "day 1/a?.txt")

        // Made by the signed-in app: POST /api/share on the cookie, same-origin only.
        let cookie = try server.signIn()
        let body = #"{"path": "/trip ü", "expires": "1d"}"#
        #expect(try server.curl("/api/share", ["-H", "Cookie: \(cookie)", "-H", "Sec-Fetch-Site: cross-site", "--data", body]).status == 401)
        let made = try server.curl("/api/share", ["-H", "Cookie: \(cookie)", "-H", "Sec-Fetch-Site: same-origin", "--data", body])
        #expect(made.status == 201)
        let json = try #require(try JSONSerialization.jsonObject(with: made.body) as? [String: Any])
        let link = try #require(json["link"] as? String)
        #expect(link.hasPrefix("s/") && link.hasSuffix("/"))

        let page = try server.curl("/" + link)
        #expect(page.status == 200 && page.text.contains("data-mode=\"share\"") && page.text.contains("../../app/app.js"))
        let list = try server.curl("/" + link + "day%201/?list")
        #expect(list.status == 200 && list.text.contains("\"name\":\"a?.txt\""))
        #expect(try server.curl("/" + link + "day%201/a%3F.txt").text == "inside")
        let top = try server.curl("/" + link + "?list").text
        #expect(top.contains("\"name\":\"alias.txt\"") && !top.contains("up.txt") && !top.contains("\"root\""), "\(top)")
        #expect(try server.curl("/" + link + "alias.txt").text == "inside")
        #expect(try server.curl("/" + link + "up.txt").status == 404)
        #expect(try server.curl("/" + link + "root/secret.txt").status == 404)
        #expect(try server.curl("/" + link + "root/").status == 404)
        let zip = try server.curl("/" + link + "?zip")
        #expect(zip.status == 200 && zip.body.count > 0)
        #expect(zip.body.range(of: Data("secret".utf8)) == nil && zip.body.range(of: Data("up.txt".utf8)) == nil)
        #expect(zip.body.range(of: Data("alias.txt".utf8)) != nil)
        #expect(try server.curl("/" + link + "..%2Fsecret.txt").status == 403)
        #expect(try server.curl("/" + link + "%2e%2e/secret.txt").status == 403)
        #expect(try server.curl("/" + link + "../secret.txt", ["--path-as-is"]).status == 403)
        #expect(try server.curl("/" + link + "day%201/new", ["-X", "MKCOL"]).status == 405)
        #expect(try server.curl("/" + String(link.dropLast())).status == 301)
        #expect(!FileManager.default.fileExists(atPath: shared.appendingPathComponent("day 1/new").path))
    }
}

import Foundation
import TestProbes
import Testing

/// One-time sign-in links, the `SameSite=Lax` cookie and the slowing of wrong tokens, against the real
/// `skylift serve` process.
@Suite struct WebAppSignInTests {
    private func cookie(of answer: WebAppServer.Answer) -> String? {
        answer.header("Set-Cookie").first.map { String($0.prefix { $0 != ";" }) }
    }

    @Test func thePrintedLinkSignsInOnceAndHoldsNoToken() throws {
        let server = try WebAppServer()
        let link = server.signInLink
        #expect(link.hasPrefix(server.url + "/signin?code=") && !link.contains(server.token), "\(link)")
        let path = String(link.dropFirst(server.url.count))
        // A HEAD (a link checker) does not use the code up.
        #expect(try server.curl(path, ["-I"]).header("Set-Cookie").isEmpty)
        let first = try server.curl(path)
        #expect(first.status == 303 && first.header("Location") == ["./"])
        let setCookie = try #require(first.header("Set-Cookie").first)
        #expect(setCookie.contains("SameSite=Lax") && setCookie.contains("HttpOnly"))
        let session = try #require(cookie(of: first))
        #expect(try server.curl("/", ["-H", "Cookie: \(session)"]).text.contains("app/app.js"))

        // Used once: the same link again is refused, and so are made-up codes.
        let again = try server.curl(path)
        #expect(again.status == 401 && again.header("Set-Cookie").isEmpty && again.text.contains("name=\"token\""))
        #expect(try server.curl("/signin?code=" + String(repeating: "0", count: 32)).status == 401)
        #expect(try server.curl("/signin?code=../../secret").status == 401)
        // Without a code, /signin goes back to the front page; the form still takes the token.
        #expect(try server.curl("/signin").header("Location") == ["./"])

        // The codes are stored as digests in a private file, and the used one is gone.
        let file = server.root.appendingPathComponent(".skylift-webapp/signin-codes")
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
        #expect(try !String(contentsOf: file, encoding: .utf8).contains(String(path.dropFirst("/signin?code=".count))))
    }

    @Test func signinGivesAFreshLinkToARunningServer() throws {
        let server = try WebAppServer()
        let (status, out) = try runProgram(skyliftBinary().path, ["signin", "--root", server.root.path, "--url", server.url],
                                           environment: ["PATH": "/usr/bin:/bin"])
        #expect(status == 0, "\(out)")
        let link = try #require(out.split(separator: "\n").first.map(String.init))
        #expect(link.hasPrefix(server.url + "/signin?code="))
        let path = String(link.dropFirst(server.url.count))
        #expect(try server.curl(path).status == 303)
        #expect(try server.curl(path).status == 401)
    }

    @Test func aTokenFromTheEnvironmentStillGetsAOneTimeLink() throws {
        let scratch = try TempFolder("signin-env")
        let root = try scratch.folder("root")
        let token = "env-" + UUID().uuidString
        let serve = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--quiet"],
                                     environment: ["PATH": "/usr/bin:/bin", "SKYLIFT_TOKEN": token])
        defer { _ = serve.terminate() }
        let lines = serve.lines(4)
        #expect(lines.contains("  token: as given"), "\(lines)")
        let open = try #require(lines.first { $0.hasPrefix("  open:  ") })
        #expect(open.contains("/signin?code=") && !open.contains(token), "\(open)")
    }

    @Test func linksFromOtherSitesOpenTheAppButCannotChangeAnything() throws {
        let server = try WebAppServer()
        let session = try server.signIn()
        let c = ["-H", "Cookie: \(session)"]
        // A top-level navigation from another site (what a link in a chat or a mail is) opens the app.
        let nav = ["-H", "Sec-Fetch-Site: cross-site", "-H", "Sec-Fetch-Mode: navigate"]
        #expect(try server.curl("/", c + nav).text.contains("app/app.js"))
        // Changes from another site are still refused.
        #expect(try server.curl("/dav/x", c + nav + ["-X", "MKCOL"]).status == 401)
        #expect(try server.curl("/signout", c + nav + ["-X", "POST"]).status == 403)
        #expect(try server.curl("/api/share", c + ["-H", "Origin: http://evil.example", "--data", "{\"path\":\"/\"}"]).status == 401)
        #expect(!FileManager.default.fileExists(atPath: server.root.appendingPathComponent("x").path))
    }

    @Test func wrongTokensAreSlowedButTheRightOneIsNot() throws {
        let server = try WebAppServer()
        try Data("a".utf8).write(to: server.root.appendingPathComponent("a.txt"))
        // The first wrong tokens cost nothing (typos); the form, ?token= and Bearer count alike.
        #expect(try server.curl("/signin", ["-H", "Sec-Fetch-Site: same-origin", "--data", "token=bad"]).status == 401)
        #expect(try server.curl("/?token=bad").status == 401)
        for _ in 0 ..< 3 { #expect(try server.curl("/dav/a.txt", ["-H", "Authorization: Bearer nope"]).status == 401) }
        // The sixth opens a penalty (1 s, then 2 s, …): a wrong token inside it is refused at once with 429.
        #expect(try server.curl("/dav/a.txt", ["-u", "any:wrong"]).status == 401)
        let refused = try server.curl("/dav/a.txt", ["-H", "Authorization: Bearer again"])
        #expect(refused.status == 429 && refused.header("Retry-After").first.flatMap(Int.init) ?? 0 >= 1, "\(refused.headers)")
        #expect(try server.curl("/?token=bad").status == 429)
        // A request without credentials is not a guess, and the right token is answered as ever.
        #expect(try server.curl("/dav/a.txt").status == 401)
        #expect(try server.curl("/dav/a.txt", ["-H", "Authorization: Bearer \(server.token)"]).text == "a")
        #expect(try server.curl("/?token=\(server.token)").status == 303)
    }
}

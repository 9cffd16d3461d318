import TestPrograms
import Foundation
import TestProbes
import Testing

/// Sign-in, the session cookie and its cross-site checks, against the real `skylift serve` process.
@Suite struct WebAppSessionTests {
    @Test func tokenURLSetsACookieThatIsNotTheToken() throws {
        let server = try WebAppServer()
        let form = try server.curl("/")
        #expect(form.status == 200 && form.text.contains("name=\"token\""))
        #expect(!form.text.contains("app/app.js"))

        let wrong = try server.curl("/?token=nope")
        #expect(wrong.status == 401 && wrong.header("Set-Cookie").isEmpty)

        let right = try server.curl("/?token=\(server.token)")
        #expect(right.status == 303)
        #expect(right.header("Location") == ["./"])
        let setCookie = try #require(right.header("Set-Cookie").first)
        #expect(setCookie.hasPrefix("skylift_session=") && setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
        #expect(!setCookie.contains(server.token))
        #expect(!setCookie.contains("Secure"))  // plain HTTP: a Secure cookie would never come back

        let cookie = String(setCookie.prefix { $0 != ";" })
        let app = try server.curl("/", ["-H", "Cookie: \(cookie)"])
        #expect(app.status == 200 && app.text.contains("app/app.js"))
        #expect(try server.curl("/app/app.js").status == 200)

        // The form posts the token; a wrong one is refused, the right one starts a session.
        #expect(try server.curl("/signin", ["-H", "Sec-Fetch-Site: same-origin", "--data", "token=bad"]).status == 401)
        let posted = try server.curl("/signin", ["-H", "Sec-Fetch-Site: same-origin", "--data-urlencode", "token=\(server.token)"])
        #expect(posted.status == 303 && posted.header("Set-Cookie").count == 1)
        #expect(try server.curl("/signin", ["-H", "Sec-Fetch-Site: cross-site", "--data", "token=\(server.token)"]).status == 403)

        // The state folder is private: secret and sessions 0600 in a 0700 folder.
        let state = server.root.appendingPathComponent(".skylift-webapp")
        for (path, mode) in [(state.path, 0o700), (state.appendingPathComponent("secret").path, 0o600),
                             (state.appendingPathComponent("sessions").path, 0o600)] {
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == mode, "\(path)")
        }
        // …and no request reaches it.
        #expect(try server.curl("/dav/.skylift-webapp/secret", ["-H", "Authorization: Bearer \(server.token)"]).status == 404)
    }

    @Test func cookieReadsFreelyButWritesOnlyFromTheSameOrigin() throws {
        let server = try WebAppServer()
        try Data("hello".utf8).write(to: server.root.appendingPathComponent("a b#?.txt"))
        let cookie = try server.signIn()
        let c = ["-H", "Cookie: \(cookie)"]

        let list = try server.curl("/dav/?list", c)
        #expect(list.status == 200 && list.text.contains("\"name\":\"a b#?.txt\""))
        let file = try server.curl("/dav/a%20b%23%3F.txt", c + ["-r", "1-3"])
        #expect(file.status == 206 && file.text == "ell")
        #expect(file.header("Content-Security-Policy") == ["sandbox"])

        // Writes riding on the cookie: same-origin passes; cross-site, or with no sign of origin, does not.
        #expect(try server.curl("/dav/x1", c + ["-X", "MKCOL", "-H", "Sec-Fetch-Site: same-origin"]).status == 201)
        #expect(try server.curl("/dav/x2", c + ["-X", "MKCOL", "-H", "Sec-Fetch-Site: cross-site"]).status == 401)
        #expect(try server.curl("/dav/x3", c + ["-X", "MKCOL", "-H", "Sec-Fetch-Site: same-site"]).status == 401)
        #expect(try server.curl("/dav/x4", c + ["-X", "MKCOL"]).status == 401)
        let host = server.url.replacingOccurrences(of: "http://", with: "")
        #expect(try server.curl("/dav/x5", c + ["-X", "MKCOL", "-H", "Origin: http://\(host)"]).status == 201)
        #expect(try server.curl("/dav/x6", c + ["-X", "MKCOL", "-H", "Origin: http://evil.example"]).status == 401)
        // A cross-site form POST (tus creation) and DELETE are refused too.
        #expect(try server.curl("/dav/", c + ["-X", "POST", "-H", "Sec-Fetch-Site: cross-site", "-H", "Tus-Resumable: 1.0.0",
                                            "-H", "Upload-Length: 1", "-H", "Upload-Metadata: filename eA=="]).status == 401)
        #expect(try server.curl("/dav/x1", c + ["-X", "DELETE", "-H", "Origin: http://evil.example"]).status == 401)
        // Methods the app never sends still need the token, cookie or not.
        #expect(try server.curl("/dav/", c + ["-X", "PROPFIND", "-H", "Sec-Fetch-Site: same-origin"]).status == 401)
        #expect(try server.curl("/dav/y.txt", c + ["-X", "PUT", "-H", "Sec-Fetch-Site: same-origin", "--data", "x"]).status == 401)
        // The HTML index of a folder links relatively, so it stays right behind `skylift proxy` or a prefix.
        try FileManager.default.createDirectory(at: server.root.appendingPathComponent("x1/in #1"), withIntermediateDirectories: true)
        let index = try server.curl("/dav/x1/", ["-H", "Authorization: Bearer \(server.token)"]).text
        #expect(index.contains("href=\"../\"") && index.contains("href=\"./in%20%231/\"") && !index.contains("href=\"/dav"))
        let made = try FileManager.default.contentsOfDirectory(atPath: server.root.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(made == ["a b#?.txt", "x1", "x5"])

        // A forged cookie (right shape, wrong MAC) and no cookie get nothing; a browser's fetch is not offered Basic.
        let forged = "skylift_session=" + String(repeating: "a", count: 32) + "." + String(repeating: "b", count: 64)
        #expect(try server.curl("/dav/?list", ["-H", "Cookie: \(forged)"]).status == 401)
        let scripted = try server.curl("/dav/?list", ["-H", "Sec-Fetch-Mode: cors"])
        #expect(scripted.status == 401 && !scripted.header("WWW-Authenticate").contains { $0.hasPrefix("Basic") })
        #expect(try server.curl("/dav/").header("WWW-Authenticate").contains { $0.hasPrefix("Basic") })
    }

    /// The case: through `skylift proxy --origin …/dav`, every link of a folder's index must resolve.
    @Test func indexLinksWorkThroughTheProxy() throws {
        let server = try WebAppServer()
        try FileManager.default.createDirectory(at: server.root.appendingPathComponent("sub dir #1/deeper"), withIntermediateDirectories: true)
        try Data("in".utf8).write(to: server.root.appendingPathComponent("sub dir #1/a?b %.txt"))
        let proxy = Process()
        proxy.executableURL = skyliftBinary()
        proxy.arguments = ["proxy", "--origin", server.url + "/dav", "--token", server.token, "--listen", "127.0.0.1:0",
                           "--cache-dir", server.base.appendingPathComponent("cache").path, "--quiet"]
        let out = Pipe()
        proxy.standardOutput = out
        try proxy.run()
        defer { proxy.terminate(); proxy.waitUntilExit() }
        var printed = ""
        while !printed.contains("  url:") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(printed.split(separator: "\n").first { $0.hasPrefix("  url:") })
        let base = try #require(URL(string: line.dropFirst("  url:".count).trimmingCharacters(in: .whitespaces)))
        let folder = try #require(URL(string: "sub%20dir%20%231/", relativeTo: base))
        let (status, index) = try runProgram(try TestPrograms.path("curl").path, ["-s", "-g", folder.absoluteString])
        #expect(status == 0 && index.contains("href=\"../\""), "\(index)")
        let hrefs = index.components(separatedBy: "href=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(hrefs.count == 3)
        for href in hrefs {
            let target = try #require(URL(string: href, relativeTo: folder)).absoluteString
            #expect(try curlStatus(["-g", target]) == "200", "\(href) → \(target)")
        }
    }

    @Test func signOutRevokesTheCookieWhichSurvivesRestartsUntilThen() throws {
        let server = try WebAppServer()
        let cookie = try server.signIn()
        let other = try server.signIn()
        try server.start()
        #expect(try server.curl("/dav/?list", ["-H", "Cookie: \(cookie)"]).status == 200)

        #expect(try server.curl("/signout", ["-X", "POST", "-H", "Cookie: \(cookie)", "-H", "Sec-Fetch-Site: cross-site"]).status == 403)
        let out = try server.curl("/signout", ["-X", "POST", "-H", "Cookie: \(cookie)", "-H", "Sec-Fetch-Site: same-origin"])
        #expect(out.status == 303 && out.header("Set-Cookie").first?.contains("Max-Age=0") == true)
        #expect(try server.curl("/dav/?list", ["-H", "Cookie: \(cookie)"]).status == 401)
        try server.start()
        #expect(try server.curl("/dav/?list", ["-H", "Cookie: \(cookie)"]).status == 401)
        #expect(try server.curl("/dav/?list", ["-H", "Cookie: \(other)"]).status == 200)
    }

    @Test func folderZipStreamsAndUnpacksByteExact() throws {
        let server = try WebAppServer()
        let folder = server.root.appendingPathComponent("trip ü #1")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("day 2/empty"), withIntermediateDirectories: true)
        var expected: [String: Data] = [:]
        for (name, size) in [("a.bin", 200_000), ("day 2/b?.txt", 5), ("day 2/日本.dat", 70_000), ("zero", 0)] {
            let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) })
            try data.write(to: folder.appendingPathComponent(name))
            expected[name] = data
        }
        let answer = try server.curl("/dav/trip%20%C3%BC%20%231/?zip", ["-H", "Authorization: Bearer \(server.token)"])
        #expect(answer.status == 200 && answer.header("Content-Type") == ["application/zip"])
        #expect(answer.header("Transfer-Encoding") == ["chunked"])
        #expect(answer.header("Content-Disposition").first?.contains("filename*=UTF-8''trip%20%C3%BC%20%231.zip") == true)
        let zip = server.base.appendingPathComponent("out.zip")
        try answer.body.write(to: zip)
        let (unzipStatus, unzipOut) = try runProgram(try TestPrograms.path("unzip").path, ["-t", zip.path])
        #expect(unzipStatus == 0, "\(unzipOut)")
        let check = """
        import sys, zipfile, json
        z = zipfile.ZipFile(sys.argv[1])
        assert z.testzip() is None
        print(json.dumps({i.filename: z.read(i).hex() for i in z.infolist()}))
        """
        let (status, out) = try runProgram(try TestPrograms.python().path, ["-c", check, zip.path])
        #expect(status == 0, "\(out)")
        let members = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: String] ?? [:]
        for (name, data) in expected { #expect(members[name] == data.map { String(format: "%02x", $0) }.joined(), "\(name)") }
        #expect(members["day 2/"] == "" && members["day 2/empty/"] == "")
        #expect(members.count == expected.count + 2)
        // A file is not a folder to zip.
        #expect(try server.curl("/dav/trip%20%C3%BC%20%231/a.bin?zip", ["-H", "Authorization: Bearer \(server.token)"]).status == 400)
    }
}

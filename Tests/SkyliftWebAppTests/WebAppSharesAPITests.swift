import Foundation
import TestProbes
import Testing

/// The app's share list and revocation (`GET /api/shares`, `DELETE /api/shares/<id>`), against the real
/// `skylift serve` process.
@Suite struct WebAppSharesAPITests {
    private struct Listed: Decodable {
        struct Share: Decodable { let id: String, path: String, link: String, expires: Int64 }
        let shares: [Share]
    }

    @Test func sharesAreListedWithTheirExpiryAndRevokedByID() throws {
        let server = try WebAppServer()
        try FileManager.default.createDirectory(at: server.root.appendingPathComponent("trip ü"), withIntermediateDirectories: true)
        try Data("v".utf8).write(to: server.root.appendingPathComponent("trip ü/clip #1.mp4"))
        let app = ["-H", "Cookie: \(try server.signIn())", "-H", "Sec-Fetch-Site: same-origin"]
        let now = Int64(Date().timeIntervalSince1970)
        var made: [String: Int64] = [:]
        for (path, expires, seconds) in [("/trip ü", "30m", 1800), ("/trip ü/clip #1.mp4", "12h", 43_200), ("/trip ü", "7d", 604_800)] {
            let body = try JSONSerialization.data(withJSONObject: ["path": path, "expires": expires])
            let answer = try server.curl("/api/share", app + ["-H", "Content-Type: application/json", "--data-binary", String(decoding: body, as: UTF8.self)])
            #expect(answer.status == 201, "\(answer.text)")
            let id = try #require((try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["id"] as? String)
            made[id] = now + Int64(seconds)
        }
        let answer = try server.curl("/api/shares", app)
        #expect(answer.status == 200 && answer.header("Content-Type") == ["application/json"])
        let listed = try JSONDecoder().decode(Listed.self, from: answer.body).shares
        #expect(Set(listed.map(\.id)) == Set(made.keys))
        for share in listed {
            // The expiry is the asked lifetime from when it was made (a minute's slack for a slow machine).
            let expected = try #require(made[share.id])
            #expect(share.expires >= expected && share.expires <= expected + 60, "\(share)")
            #expect(share.path == (share.link.hasSuffix("/") ? "/trip ü" : "/trip ü/clip #1.mp4"))
            #expect(try server.curl("/" + share.link).status == 200, "\(share.link)")
        }
        let file = try #require(listed.first { !$0.link.hasSuffix("/") })
        #expect(file.link.hasSuffix("/clip%20%231.mp4"))

        // Revoking: only from the app's own page, once; the link is dead at once.
        let victim = listed[0]
        #expect(try server.curl("/api/shares/\(victim.id)", ["-X", "DELETE", "-H", "Cookie: \(try server.signIn())",
                                                               "-H", "Sec-Fetch-Site: cross-site"]).status == 401)
        #expect(try server.curl("/api/shares/\(victim.id)", app + ["-X", "DELETE"]).status == 204)
        #expect(try server.curl("/api/shares/\(victim.id)", app + ["-X", "DELETE"]).status == 404)
        #expect(try server.curl("/" + victim.link).status == 403)
        #expect(try server.curl("/api/shares/not-an-id", app + ["-X", "DELETE"]).status == 404)
        #expect(try server.curl("/api/shares", app + ["-X", "DELETE"]).status == 405)
        #expect(try server.curl("/api/shares/\(listed[1].id)", app).status == 405)
        let after = try JSONDecoder().decode(Listed.self, from: try server.curl("/api/shares", app).body).shares
        #expect(after.count == 2 && !after.contains { $0.id == victim.id })

        // Scripts use the token; nobody else sees the list.
        #expect(try server.curl("/api/shares", ["-H", "Authorization: Bearer \(server.token)"]).status == 200)
        #expect(try server.curl("/api/shares").status == 401)
        #expect(try server.curl("/api/shares/\(listed[1].id)", ["-X", "DELETE"]).status == 401)
    }

    @Test func theSharePageNamesWhatIsShared() throws {
        let server = try WebAppServer()
        try FileManager.default.createDirectory(at: server.root.appendingPathComponent("Summer <2026>/day 1"), withIntermediateDirectories: true)
        let body = try JSONSerialization.data(withJSONObject: ["path": "/Summer <2026>", "expires": "1h"])
        let made = try server.curl("/api/share", ["-H", "Authorization: Bearer \(server.token)", "--data-binary", String(decoding: body, as: UTF8.self)])
        let link = try #require((try JSONSerialization.jsonObject(with: made.body) as? [String: Any])?["link"] as? String)
        for page in [link, link + "day%201/"] {
            let answer = try server.curl("/" + page)
            #expect(answer.status == 200 && answer.text.contains("<title>Summer &lt;2026&gt; · Skylift</title>"), "\(page)")
        }
    }
}

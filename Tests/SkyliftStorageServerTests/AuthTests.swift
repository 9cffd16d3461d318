import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite struct AuthTests {
    @Test func missingOrWrongCredentialsGet401WithChallenge() throws {
        let f = try ServerFixture()
        try f.write("a.txt", Array("hello".utf8))
        let none = try Curl.run([f.url("/dav/a.txt")], authenticated: false)
        #expect(none.status == 401)
        #expect(none.headers["www-authenticate"]?.contains { $0.hasPrefix("Basic") } == true)
        #expect(none.headers["www-authenticate"]?.contains { $0.hasPrefix("Bearer") } == true)
        for bad in [["-H", "Authorization: Bearer nope"], ["-H", "Authorization: Bearer \(ServerFixture.token)x"],
                    ["-u", "user:wrong"], ["-H", "Authorization: Digest x"], ["-H", "Authorization: Basic !!!"]] {
            #expect(try Curl.run(bad + [f.url("/dav/a.txt")], authenticated: false).status == 401)
        }
        // Every method is guarded, including OPTIONS and tus endpoints.
        #expect(try Curl.run(["-X", "OPTIONS", f.url("/dav/")], authenticated: false).status == 401)
        #expect(try Curl.run(["-X", "DELETE", f.url("/dav/a.txt")], authenticated: false).status == 401)
        #expect(try Curl.run(["-I", f.url("/uploads/x")], authenticated: false).status == 401)
        #expect(FileManager.default.fileExists(atPath: f.file("a.txt").path))
    }

    @Test func bearerAndBasicWithAnyUserAreAccepted() throws {
        let f = try ServerFixture()
        try f.write("a.txt", Array("hello".utf8))
        #expect(try Curl.run([f.url("/dav/a.txt")]).text == "hello")
        #expect(try Curl.run(["-u", "anyone:\(ServerFixture.token)", f.url("/dav/a.txt")], authenticated: false).text == "hello")
        #expect(try Curl.run(["-u", ":\(ServerFixture.token)", f.url("/dav/a.txt")], authenticated: false).status == 200)
        // Scheme names in any case (RFC 9110 §11.1); an unknown scheme is no credential.
        let basic = Data("me:\(ServerFixture.token)".utf8).base64EncodedString()
        for header in ["bEaReR \(ServerFixture.token)", "BASIC \(basic)"] {
            #expect(try Curl.run(["-H", "Authorization: \(header)", f.url("/dav/a.txt")], authenticated: false).status == 200, "\(header.prefix(6))")
        }
        #expect(try Curl.run(["-H", "Authorization: Token \(ServerFixture.token)", f.url("/dav/a.txt")], authenticated: false).status == 401)
    }

    @Test func urlSessionWithBasicCredentials() async throws {
        let f = try ServerFixture()
        try f.write("b.bin", [1, 2, 3])
        var request = URLRequest(url: URL(string: f.url("/dav/b.bin"))!)
        let basic = Data("me:\(ServerFixture.token)".utf8).base64EncodedString()
        request.setValue("Basic \(basic)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(Array(data) == [1, 2, 3])
    }

    @Test func noAuthConfigurationServesWithoutCredentials() throws {
        let f = try ServerFixture(token: nil)
        try f.write("a.txt", Array("open".utf8))
        #expect(try Curl.run([f.url("/dav/a.txt")], authenticated: false).text == "open")
    }

    @Test func accessLogHasOneTokenFreeLinePerRequest() throws {
        let f = try ServerFixture()
        try f.write("a.txt", Array("hello".utf8))
        _ = try Curl.run([f.url("/dav/a.txt")])
        _ = try Curl.run(["-u", "u:\(ServerFixture.token)", f.url("/dav/a.txt?token=\(ServerFixture.token)")], authenticated: false)
        _ = try Curl.run([f.url("/dav/missing")], authenticated: false)
        // The completion callback runs after the response is sent; give it a moment to land.
        for _ in 0..<50 where f.log.all.count < 3 { Thread.sleep(forTimeInterval: 0.02) }
        let lines = f.log.all
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("GET /dav/a.txt 200") == true)
        #expect(lines.last?.contains(" 401 ") == true)
        #expect(!lines.joined().contains(ServerFixture.token))
    }
}

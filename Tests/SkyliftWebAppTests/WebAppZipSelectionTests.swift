import TestPrograms
import Foundation
import Testing

/// `<folder>/?zip&name=a&name=b`: the archive of just the chosen members of a folder, from the signed-in app
/// and from a share link, with names that need escaping; refusals for names that are not members.
@Suite struct WebAppZipSelectionTests {
    /// The members of the zip `body` and their bytes in hex, read by Python's zipfile after `unzip -t`.
    static func members(_ body: Data, in server: WebAppServer) throws -> [String: String] {
        let zip = server.base.appendingPathComponent("sel-\(UUID().uuidString).zip")
        try body.write(to: zip)
        let (unzipStatus, unzipOut) = try runProgram(try TestPrograms.path("unzip").path, ["-t", zip.path])
        #expect(unzipStatus == 0, "\(unzipOut)")
        let check = "import sys, zipfile, json\nz = zipfile.ZipFile(sys.argv[1])\nprint(json.dumps({i.filename: z.read(i).hex() for i in z.infolist()}))"
        let (status, out) = try runProgram(try TestPrograms.python().path, ["-c", check, zip.path])
        #expect(status == 0, "\(out)")
        return try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: String] ?? [:]
    }

    static func hex(_ s: String) -> String { Data(s.utf8).map { String(format: "%02x", $0) }.joined() }

    @Test func zipOfASelectionHoldsExactlyThoseMembers() throws {
        let server = try WebAppServer()
        let folder = server.root.appendingPathComponent("pics #1")
        let fm = FileManager.default
        try fm.createDirectory(at: folder.appendingPathComponent("sub ü/deeper"), withIntermediateDirectories: true)
        for (name, text) in [("a b+c.txt", "one"), ("x?#%.txt", "two"), ("left out.txt", "three"), ("sub ü/in.txt", "four"),
                             ("sub ü/deeper/d.txt", "five")] {
            try Data(text.utf8).write(to: folder.appendingPathComponent(name))
        }
        try server.start()
        let auth = ["-H", "Authorization: Bearer \(server.token)"]
        // `+` is a space in the form encoding; %2B is a plus.
        let answer = try server.curl("/dav/pics%20%231/?zip&name=a+b%2Bc.txt&name=x%3F%23%25.txt&name=sub%20%C3%BC&name=x%3F%23%25.txt", auth)
        #expect(answer.status == 200 && answer.header("Content-Type") == ["application/zip"])
        let members = try Self.members(answer.body, in: server)
        #expect(members == ["a b+c.txt": Self.hex("one"), "x?#%.txt": Self.hex("two"), "sub ü/": "", "sub ü/in.txt": Self.hex("four"),
                            "sub ü/deeper/": "", "sub ü/deeper/d.txt": Self.hex("five")], "\(members)")
        // No names: the whole folder, as before.
        let whole = try Self.members(try server.curl("/dav/pics%20%231/?zip", auth).body, in: server)
        #expect(whole["left out.txt"] == Self.hex("three") && whole.count == 7, "\(whole)")
        // Names that are not members: a missing one is 404, a path or a dot-dot 400, the server's hidden files 404.
        #expect(try server.curl("/dav/pics%20%231/?zip&name=nope.txt", auth).status == 404)
        for bad in ["..", "sub%20%C3%BC%2Fin.txt", "", "%ZZ"] {
            #expect(try server.curl("/dav/pics%20%231/?zip&name=\(bad)", auth).status == 400, "\(bad)")
        }
        #expect(try server.curl("/dav/?zip&name=.skylift-state", auth).status == 404)
        // Without a session or token nothing is zipped.
        #expect(try server.curl("/dav/pics%20%231/?zip&name=a+b%2Bc.txt").status == 401)
    }

    @Test func zipOfASelectionThroughAShareLinkStaysInsideTheShare() throws {
        let server = try WebAppServer()
        let folder = server.root.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("in".utf8).write(to: folder.appendingPathComponent("in.txt"))
        try Data("also".utf8).write(to: folder.appendingPathComponent("also.txt"))
        try Data("secret".utf8).write(to: server.root.appendingPathComponent("secret.txt"))
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("out.txt").path,
                                                   withDestinationPath: "../secret.txt")
        try server.start()
        let cookie = try server.signIn()
        let made = try server.curl("/api/share", ["-H", "Cookie: \(cookie)", "-H", "Sec-Fetch-Site: same-origin",
                                                  "--data", #"{"path":"/shared","expires":"1h"}"#])
        #expect(made.status == 201, "\(String(decoding: made.body, as: UTF8.self))")
        let link = try #require((try JSONSerialization.jsonObject(with: made.body) as? [String: Any])?["link"] as? String)
        let answer = try server.curl("/" + link + "?zip&name=in.txt")
        #expect(answer.status == 200)
        #expect(try Self.members(answer.body, in: server) == ["in.txt": Self.hex("in")])
        // A link leading out of the share is not a member of it.
        #expect(try server.curl("/" + link + "?zip&name=out.txt").status == 404)
    }
}

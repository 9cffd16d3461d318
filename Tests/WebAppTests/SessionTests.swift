import Foundation
import SkyliftCore
import Testing
@testable import WebApp

@Suite struct SessionTests {
    @Test func cookiesAreSignedRevocableAndPersisted() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-sessions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let state = try WebState(root: dir.path)
        let secret = try state.secret()
        #expect(try state.secret() == secret)
        let sessions = Sessions(state: state, secret: secret)
        let a = sessions.create(), b = sessions.create()
        #expect(sessions.isValid(a) && sessions.isValid(b) && a != b)
        // A tampered MAC, or the right id under another secret, is refused.
        #expect(!sessions.isValid(String(a.dropLast()) + (a.last == "0" ? "1" : "0")))
        #expect(!Sessions(state: state, secret: [UInt8](repeating: 1, count: 32)).isValid(a))
        sessions.revoke(a)
        #expect(!sessions.isValid(a))
        let reloaded = Sessions(state: state, secret: secret)
        #expect(!reloaded.isValid(a) && reloaded.isValid(b))
        for bad in ["", ".", "x.y", String(repeating: "z", count: 32) + "." + String(repeating: "0", count: 64)] {
            #expect(!reloaded.isValid(bad))
        }
    }

    @Test func crossSiteAndCookieParsing() {
        #expect(CrossSite.isSameOrigin(["Sec-Fetch-Site": "same-origin"]))
        #expect(!CrossSite.isSameOrigin(["Sec-Fetch-Site": "cross-site", "Origin": "http://h:1", "Host": "h:1"]))
        #expect(CrossSite.isSameOrigin(["Origin": "http://h:1", "Host": "h:1"]))
        #expect(!CrossSite.isSameOrigin(["Origin": "http://evil", "Host": "h:1"]))
        #expect(!CrossSite.isSameOrigin(["Host": "h:1"]))
        #expect(Cookies.value("skylift_session", in: ["Cookie": "a=1; skylift_session=v.w ; b=2"]) == "v.w")
        #expect(Cookies.value("skylift_session", in: ["Cookie": "xskylift_session=1"]) == nil)
    }
}

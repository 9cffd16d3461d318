import Foundation
import SkyliftCore
import TestProbes
import Testing
@testable import SkyliftWebApp

@Suite struct SessionTests {
    @Test func cookiesAreSignedRevocableAndPersisted() throws {
        let scratch = try TempFolder("sessions"), dir = scratch.url
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

/// Hostile input to every parser of the module: random and edge-case bytes never trap and are refused.
@Suite struct HostileInputTests {
    @Test func parsersRefuseGarbage() throws {
        let scratch = try TempFolder("hostile"), dir = scratch.url
        let state = try WebState(root: dir.path)
        let shares = Shares(state: state, secret: try state.secret())
        let sessions = Sessions(state: state, secret: try state.secret())
        _ = try shares.create(path: ["a"], expires: Date().addingTimeInterval(60))
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdef-.;= %\u{0}/\u{FFFD}ü".unicodeScalars)
        for round in 0..<3000 {
            let length = Int.random(in: 0...(round % 10 == 0 ? 400 : 100), using: &generator)
            let text = String(String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement(using: &generator)! }))
            #expect(shares.check(text) == .refused)
            #expect(!sessions.isValid(text))
            _ = Cookies.value("skylift_session", in: ["Cookie": text])
            _ = WebApp.formValue("token", in: text)
            _ = CrossSite.isSameOrigin(["Origin": text, "Host": text, "Sec-Fetch-Site": text])
            if let lifetime = Shares.lifetime(text) { #expect(lifetime > 0 && lifetime <= 366 * 86_400) }
        }
        for text in ["99999999999999999999d", "-1d", "0d", "367d", "1y", "d", "", "9223372036854775807s"] {
            #expect(Shares.lifetime(text) == nil, "\(text)")
        }
        #expect(Shares.lifetime("7d") == 7 * 86_400 && Shares.lifetime("30m") == 1800)
    }
}

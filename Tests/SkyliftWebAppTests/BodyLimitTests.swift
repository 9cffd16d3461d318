import Foundation
import Testing

/// Small request bodies over their limit are refused with 413 naming what kind of body it was.
@Suite struct BodyLimitTests {
    @Test func oversizedJSONAndFormBodiesNameTheirKind() throws {
        let server = try WebAppServer()
        let cookie = try server.signIn()
        let json = #"{"path": "/"# + String(repeating: "a", count: 17 << 10) + #"", "expires": "1d"}"#
        let share = try server.curl("/api/share", ["-H", "Cookie: \(cookie)", "-H", "Sec-Fetch-Site: same-origin", "--data-binary", json])
        #expect(share.status == 413)
        #expect(share.text.contains("JSON body larger than 16384 bytes"), "\(share.text)")
        let form = "token=" + String(repeating: "b", count: 5000)
        let signIn = try server.curl("/signin", ["-H", "Sec-Fetch-Site: same-origin", "--data-binary", form])
        #expect(signIn.status == 413)
        #expect(signIn.text.contains("form body larger than 4096 bytes"), "\(signIn.text)")
    }
}

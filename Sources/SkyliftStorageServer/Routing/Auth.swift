import Foundation
import SkyliftCore
import SkyliftHashing
import SkyliftHTTPServer

/// Checks a request's credentials against the configured token in constant time.
///
/// Accepted: `Authorization: Bearer <token>`, or Basic with any user name and the token as password,
/// so ordinary WebDAV clients work. Only digests of the token are kept and compared.
struct Auth: Sendable {
    private let expected: [UInt8]?

    init(token: String?) { expected = token.map { Digest.hash(.sha256, Array($0.utf8)) } }

    var isEnabled: Bool { expected != nil }

    /// What a request's `Authorization` says.
    enum Verdict {
        case allowed
        /// No token in it (no header, or a scheme other than Bearer and Basic).
        case missing
        /// A token that is not the right one: counted by the throttle.
        case wrong
    }

    func allows(_ headers: HTTPHeaders) -> Bool { verdict(headers) == .allowed }

    func verdict(_ headers: HTTPHeaders) -> Verdict {
        guard expected != nil else { return .allowed }
        guard let value = headers["Authorization"], let presented = Self.presentedToken(value) else { return .missing }
        return allows(token: presented) ? .allowed : .wrong
    }

    /// True when `presented` is the token (or no token is required).
    func allows(token presented: [UInt8]) -> Bool {
        guard let expected else { return true }
        // Comparing fixed-size digests hides the token's length and the position of the first difference.
        let digest = Digest.hash(.sha256, presented)
        var difference: UInt8 = 0
        for (a, b) in zip(digest, expected) { difference |= a ^ b }
        return difference == 0
    }

    private static func presentedToken(_ value: String) -> [UInt8]? {
        let v = value.trimmingSpaces()
        guard let space = v.firstIndex(of: " ") else { return nil }
        // Schemes are case-insensitive (RFC 9110 §11.1): compared as field names are, without a lowercased copy.
        let scheme = String(v[..<space]), credentials = String(v[v.index(after: space)...]).trimmingSpaces()
        if HTTPHeaders.namesMatch(scheme, "bearer") { return Array(credentials.utf8) }
        guard HTTPHeaders.namesMatch(scheme, "basic"), let decoded = Data(base64Encoded: credentials),
              let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return Array(decoded[decoded.index(after: colon)...])
    }

    /// The 401 answer, inviting both schemes. A browser's scripted or embedded request (`Sec-Fetch-Mode` other
    /// than `navigate`: the web app's fetches, its `<video>` and `<img>`) is not offered Basic, which would pop
    /// the browser's password dialog over the app; the app shows its own sign-in page instead.
    static func challenge(_ headers: HTTPHeaders = [:]) -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("WWW-Authenticate", "Bearer realm=\"skylift\"")
        if (headers["Sec-Fetch-Mode"].map { $0 == "navigate" } ?? true) {
            h.add("WWW-Authenticate", "Basic realm=\"skylift\", charset=\"UTF-8\"")
        }
        return .text(401, "authentication required", headers: h)
    }
}

import SkyliftCore

/// The `Cookie` request header (RFC 6265 §5.4) and the session cookie's `Set-Cookie` lines.
public enum Cookies {
    /// The session cookie's name.
    public static let session = "skylift_session"

    /// The value of cookie `name` in the request's `Cookie` headers; nil when absent.
    public static func value(_ name: String, in headers: HTTPHeaders) -> String? {
        for header in headers.values("Cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = String(pair).trimmingSpaces()
                guard let eq = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<eq] == name { return String(trimmed[trimmed.index(after: eq)...]) }
            }
        }
        return nil
    }

    /// Sets the session cookie: not readable by scripts, HTTPS-only under TLS. `SameSite=Lax`: a link from
    /// another site (a chat, a mail) opens the app signed in, since the browser sends the cookie on top-level
    /// GET navigations; it never rides on another site's subresource requests or forms, and every request that
    /// changes something is checked for its origin as well (``CrossSite``). `Path=/` is not set: the cookie
    /// stays with the folder the app was opened from (the server root, or a proxy's prefix).
    public static func setSession(_ value: String, secure: Bool) -> String {
        "\(session)=\(value); Max-Age=\(Int(Sessions.lifetime)); HttpOnly; SameSite=Lax\(secure ? "; Secure" : "")"
    }

    /// Removes the session cookie.
    public static func clearSession(secure: Bool) -> String {
        "\(session)=; Max-Age=0; HttpOnly; SameSite=Lax\(secure ? "; Secure" : "")"
    }
}

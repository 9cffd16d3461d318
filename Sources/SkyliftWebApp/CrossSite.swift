import SkyliftCore

/// Tells requests a page of this server made from requests another site made a browser send.
///
/// A request that changes something and is authenticated only by the session cookie must show it comes from
/// this origin: `Sec-Fetch-Site: same-origin` (every current browser sends it), or, from a browser that does
/// not, an `Origin` whose host is the request's `Host`. A request with neither is refused: a browser always
/// sends at least one of them on such requests, so this costs nothing but a forged cross-site request.
public enum CrossSite {
    /// True when the request may ride on the session cookie.
    public static func isSameOrigin(_ headers: HTTPHeaders) -> Bool {
        if let site = headers["Sec-Fetch-Site"]?.trimmingSpaces().lowercased() {
            return site == "same-origin" || site == "none"
        }
        guard let origin = headers["Origin"]?.trimmingSpaces(), let host = headers["Host"]?.trimmingSpaces(),
              !host.isEmpty else { return false }
        return origin == "http://" + host || origin == "https://" + host
    }
}

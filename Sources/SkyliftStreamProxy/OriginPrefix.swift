import Foundation

/// The origin URL taken apart once: every proxied request's URL is its text plus a checked path, and is
/// verified to keep the origin's scheme, host, port and path prefix.
///
/// Parsing the origin anew for every request (and reading `URLComponents.host`, which runs IDNA conversion)
/// was about a tenth of the proxy's CPU for small warm ranges. Hosts are compared in their encoded form, which
/// both sides get from the same parser.
struct OriginPrefix: Sendable {
    /// The origin's text without trailing slashes: a checked path is appended to it.
    let base: String
    let scheme: String?
    let host: String?
    let port: Int?
    /// The origin's encoded path without trailing slashes, plus `/`: every proxied path starts with it.
    let pathPrefix: String

    init(_ origin: URL) {
        var base = origin.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
        let parts = URLComponents(url: origin, resolvingAgainstBaseURL: false)
        scheme = parts?.scheme
        host = parts?.percentEncodedHost
        port = parts?.port
        var path = parts?.percentEncodedPath ?? ""
        while path.hasSuffix("/") { path.removeLast() }
        pathPrefix = path + "/"
    }

    /// True when `url` is under this origin: same scheme, host and port, and a path under its prefix.
    func contains(_ url: URL) -> Bool {
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return false }
        return parts.scheme == scheme && parts.percentEncodedHost == host && parts.port == port
            && parts.percentEncodedPath.hasPrefix(pathPrefix)
    }
}
